import * as pulumi from "@pulumi/pulumi";
import { providerText, type ProviderName } from "./provider-text";

/**
 * The base of stackwarden's dynamic resources: what `pulumi.dynamic.Resource` registers (type
 * `pulumi-nodejs:dynamic/<module>:<Type>`, served by the Node.js dynamic-provider plugin, the
 * provider in `__provider`), except that `__provider` is `providerText(name)`, a few bytes that load
 * the provider from `dist/` at call time, instead of a serialized closure. The program therefore
 * serializes nothing per resource, and the state carries no code.
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
    super(`pulumi-nodejs:dynamic/${module}:${type}`, name, { ...props, __provider: providerText(provider) }, opts);
  }
}
