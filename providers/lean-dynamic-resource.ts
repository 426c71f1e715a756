import * as pulumi from "@pulumi/pulumi";
import { providerText, type ProviderName } from "./provider-text";

/**
 * The base of stackwarden's dynamic resources: what `pulumi.dynamic.Resource` registers (type
 * `pulumi-nodejs:dynamic/<module>:<Type>`, served by the Node.js dynamic-provider plugin, the
 * provider in `__provider`), except that:
 * - `__provider` is `providerText(name)`, a few bytes that load the provider from `dist/` at call
 *   time, instead of a serialized closure: the program serializes nothing, the state carries no code;
 * - the source position recorded with the resource is where the program registered it (one frame
 *   in stacks/), not the whole Node.js call stack below it (our resource classes, the module
 *   loader, Pulumi's runner: ~750 bytes of state per resource that locate nothing useful).
 */
export abstract class LeanDynamicResource extends pulumi.CustomResource {
  protected constructor(
    provider: ProviderName,
    module: string,
    type: string,
    name: string,
    props: pulumi.Inputs,
    opts?: pulumi.CustomResourceOptions,
  ) {
    if (props.__provider) throw new Error("A dynamic resource must not define the __provider key");
    // Pulumi reads the registration's call stack from `new Error().stack` in its Resource
    // constructor: only while that runs, the stack is formatted from the trimmed frames.
    const previous = Error.prepareStackTrace;
    Error.prepareStackTrace = (error, sites) => {
      const kept = registrationFrames(sites);
      return previous ? previous(error, kept) : `${String(error)}${kept.map((s) => `\n    at ${String(s)}`).join("")}`;
    };
    try {
      super(`pulumi-nodejs:dynamic/${module}:${type}`, name, { ...props, __provider: providerText(provider) }, opts);
    } finally {
      Error.prepareStackTrace = previous;
    }
  }
}

/** Frames Pulumi's Resource constructor skips: its own (callsites, stackTrace, Resource, CustomResource) and the concrete class's. */
const SKIPPED_BY_PULUMI = 5;

/** The frames Pulumi skips, then the first frame outside our resource classes (the program's call), and nothing below it. */
function registrationFrames(sites: NodeJS.CallSite[]): NodeJS.CallSite[] {
  const site = sites.slice(SKIPPED_BY_PULUMI).find((s) => !(s.getFileName() ?? "").startsWith(__dirname));
  return [...sites.slice(0, SKIPPED_BY_PULUMI), ...(site ? [site] : [])];
}
