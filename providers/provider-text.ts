import type { CarrierToken } from "../src/domain/facts/carrier";

/**
 * A provider by name: the TDE resource's, a certificate probe's, an artifact scan's, the residency
 * carrier's, or a data source's token (`sql:ServiceTierAdvisors`). Users' state records it.
 */
export type ProviderName = "tde" | "certificateProbe" | "artifactScan" | "residency" | CarrierToken;

/** Where the providers are, relative to the project: compiled by `npm run build`. */
export const PROVIDER_ENTRY = "dist/providers/provider-entry.js";

/**
 * The module a dynamic resource stores as its `__provider` (in its inputs and again in its outputs,
 * for every resource): the plugin loads it with `require-from-string` and calls `handler()`. It
 * holds no code of ours, only where to find it: `dist/providers/provider-entry.js` of the project,
 * loaded at call time. Pulumi starts the plugin in the program's directory (Pulumi.yaml `main:
 * stacks/`), so the project is `..`; STACKWARDEN_HOME names it otherwise. So it is ~150 bytes
 * whatever the providers do (Pulumi's own `serializeFunction` captured ~2.8 KB), and a stack written
 * by one build runs with the next. (The program itself refuses to run unbuilt, stacks/index.js.)
 */
export function providerText(name: ProviderName): string {
  return `exports.handler=()=>require(require("path").resolve(process.env.STACKWARDEN_HOME||"..",${JSON.stringify(PROVIDER_ENTRY)})).provider(${JSON.stringify(name)})`;
}
