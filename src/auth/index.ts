export * from "./chained-credential";
export * from "./credential-errors";
export * from "./default-credential";
export * from "./imds-credential";
export * from "./scopes";
export * from "./static-token-credential";
export * from "../http/token-credential";
