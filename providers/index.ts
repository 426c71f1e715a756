export * from "./transparent-data-encryption";
export * from "./data-sources";
export * from "./artifact-scan";
export * from "./certificate-probe";
