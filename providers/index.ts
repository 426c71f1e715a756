export * from "./transparent-data-encryption";
export * from "./data-sources";
