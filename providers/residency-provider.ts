import type * as pulumi from "@pulumi/pulumi";
import { checkResidencyInputs, RESIDENCY_RESOURCE_ID, residencyOutputs } from "../src/interfaces/pulumi/residency-resource";
import { isUnknown } from "./unknown-value";

/**
 * The provider of the stack's Residency resource (loaded from dist/ by `providerText("residency")`):
 * no API is called. It carries
 * `stackwarden:residency` (allowed countries, sites) into the stack, because a policy pack sees
 * the stack's resources and never its config; see `src/interfaces/pulumi/residency-resource`.
 */
export const residencyProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    return { inputs: news, failures: checkResidencyInputs(news, isUnknown) };
  },
  async diff(_id, olds, news) {
    return { changes: JSON.stringify(residencyOutputs(olds)) !== JSON.stringify(residencyOutputs(news)) };
  },
  async create(inputs) {
    return { id: RESIDENCY_RESOURCE_ID, outs: residencyOutputs(inputs) };
  },
  async read(id, props) {
    const outs = residencyOutputs(props ?? {});
    return { id, props: outs, inputs: outs };
  },
  async update(_id, _olds, news) {
    return { outs: residencyOutputs(news) };
  },
  async delete() {
    // Nothing outside the stack exists.
  },
};
