import type { ResourceInput } from "./fact-kind";

/**
 * A dynamic resource's `<module>:<Type>` (`sql:ServiceTierAdvisors`): its type token is
 * `pulumi-nodejs:dynamic/<module>:<Type>`, and a data source's provider is found by it. Users'
 * Pulumi state records both: a renamed one is a replace (or a delete) in every existing stack.
 */
export type CarrierToken = `${string}:${string}`;

/**
 * A Pulumi resource that carries facts to the policy pack (which sees resources, never the
 * stack's config or the cloud): a data source, or a resource with a provider of its own (the TDE
 * configuration, an artifact scan, a certificate probe, the residency section).
 */
export interface Carrier {
  token: CarrierToken;
  /** `pulumi-nodejs:dynamic/<token>`: the type the pack's resources say they are. */
  type: string;
}

const TOKEN = /^[a-z][a-z0-9]*:[A-Z][A-Za-z0-9]*$/;

/** The carrier of a token; a token not of the shape `<module>:<Type>` is a programming error. */
export function carrierOf(token: CarrierToken): Carrier {
  if (!TOKEN.test(token)) throw new Error(`carrier token "${token}" must read <module>:<Type> (e.g. sql:ServiceTierAdvisors)`);
  return { token, type: `pulumi-nodejs:dynamic/${token}` };
}

/** The pack's resources of a carrier's type. */
export function resourcesOf(carrier: Carrier, resources: readonly ResourceInput[]): ResourceInput[] {
  return resources.filter((r) => r.type === carrier.type);
}
