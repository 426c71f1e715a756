// What the Pulumi program uses: the resource classes and the provider text they store. The providers
// themselves (tde-provider.ts, data-source-provider.ts …) are loaded by that text from dist/ at call
// time, through provider-entry.ts; the program never loads them.
export * from "./transparent-data-encryption";
export * from "./data-source-resource";
export * from "./artifact-scan";
export * from "./certificate-probe";
export * from "./residency";
export { providerText, type ProviderName } from "./provider-text";
