import type { DataSourceKind } from "../src/resources/data-sources";

/** A provider by name: the TDE resource's, or a data source's kind. */
export type ProviderName = "tde" | DataSourceKind;

/** Where the providers are, relative to the project: compiled by `npm run build`. */
export const PROVIDER_ENTRY = "dist/providers/provider-entry.js";

/**
 * The module a dynamic resource stores as its `__provider` (in its inputs and again in its outputs,
 * for every resource): the plugin loads it with `require-from-string` and calls `handler()`. It
 * holds no code of ours, only where to find it: `dist/providers/provider-entry.js` of the project,
 * found from the plugin's working directory upwards (Pulumi starts the plugin in the program's
 * directory, `stacks/`) or from STACKWARDEN_HOME, and loaded at call time. So it is a few hundred
 * bytes whatever the providers do (Pulumi's own `serializeFunction` captured ~2.8 KB), and a stack
 * written by one build runs with the next. An unbuilt project is named, with the fix.
 */
export function providerText(name: ProviderName): string {
  return (
    `exports.handler=()=>{const p=require("path"),e=${JSON.stringify(PROVIDER_ENTRY)},s=p.resolve(process.env.STACKWARDEN_HOME||"");` +
    `let d=s;for(;!require("fs").existsSync(p.join(d,e));d=p.dirname(d))if(d==p.dirname(d))` +
    `throw Error(e+" not found in "+s+" or above: run npm run build in the stackwarden project, or set STACKWARDEN_HOME");` +
    `return require(p.join(d,e)).provider(${JSON.stringify(name)})}`
  );
}
