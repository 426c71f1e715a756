import type * as pulumi from "@pulumi/pulumi";
import { LeanDynamicResource } from "./lean-dynamic-resource";

export interface ResidencyArgs {
  /** ISO 3166-1 alpha-2 codes. */
  allowedCountries: pulumi.Input<pulumi.Input<string>[]>;
  /** Places named by address. */
  sites?: pulumi.Input<pulumi.Input<{ name: pulumi.Input<string>; address: pulumi.Input<string> }>[]>;
}

/**
 * Where the stack's data may live (`stackwarden:residency`), as a resource the data-residency
 * policy reads (type `pulumi-nodejs:dynamic/residency:Residency`). One per stack, registered only
 * when the stack sets residency: without it the policy has nothing to judge.
 */
export class Residency extends LeanDynamicResource {
  declare readonly allowedCountries: pulumi.Output<string[]>;
  declare readonly sites: pulumi.Output<{ name: string; address: string }[]>;

  constructor(name: string, args: ResidencyArgs, opts?: pulumi.CustomResourceOptions) {
    super("residency", "residency", "Residency", name, { sites: [], ...args }, opts);
  }
}
