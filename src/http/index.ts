export * from "./api-error";
export * from "./auth-policy";
export * from "./logger";
export * from "./redaction";
export * from "./retry-after";
export * from "./retry-policy";
export * from "./transport";
