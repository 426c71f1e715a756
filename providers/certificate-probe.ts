import * as pulumi from "@pulumi/pulumi";
import type * as ProbeCore from "../src/resources/certificate-probe";
import type { ParameterSource } from "../src/probes/parameter-source";
import { isUnknown, loadCore } from "./load-core";

/**
 * The dynamic provider of a post-deploy certificate probe. Each method is one call into
 * `src/resources/certificate-probe`. A probe proves the deployment it follows, so it is never up to
 * date: `diff` always reports a change, and every `pulumi up` runs it again (an update). That is
 * the honest mechanism: a trigger input that changes every run would say the same thing while
 * pretending an input changed. `pulumi preview` therefore always shows one update per probe.
 * Parameters are resolved here, at call time, from this process's environment (`${env:NAME}`) or
 * from the decrypted secret Pulumi hands over; neither is returned as an output.
 */
export const certificateProbeProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    const core = loadCore<typeof ProbeCore>("src/resources/certificate-probe");
    return { inputs: news, failures: core.checkCertificateProbeInputs(news, isUnknown, process.env) };
  },
  async diff() {
    return { changes: true };
  },
  async create(inputs) {
    const core = loadCore<typeof ProbeCore>("src/resources/certificate-probe");
    return core.runCertificateProbe(inputs, process.env);
  },
  async read(id, props) {
    // A refresh keeps what the probe found when it ran: running it is the job of `up`.
    return { id, props };
  },
  async update(_id, _olds, news) {
    const core = loadCore<typeof ProbeCore>("src/resources/certificate-probe");
    return { outs: (await core.runCertificateProbe(news, process.env)).outs };
  },
  async delete() {
    // Nothing to remove: a probe only asks the issuer for a document.
  },
};

export interface CertificateProbeArgs {
  /** The probe's name in the stack (unique). */
  name: string;
  issuer: string;
  doctype: string;
  /** Default pdf. */
  format?: string;
  /**
   * By the spec's field names: `{ from: "env", variable, demoDefault? }` (read by the provider at
   * call time) or `{ from: "secret", variable, value }` (a decrypted Pulumi secret, which this
   * resource wraps with `pulumi.secret`), as `ProbeSpec.parameters` holds them.
   */
  parameters: Record<string, ParameterSource>;
}

/**
 * A post-deploy probe of a certificate issuer (`pulumi-nodejs:dynamic/certificates:CertificateProbe`):
 * issues one document and checks it, on every `pulumi up`. Register it with `dependsOn` the
 * resources whose deployment it proves.
 */
export class CertificateProbe extends pulumi.dynamic.Resource {
  declare readonly name: pulumi.Output<string>;
  declare readonly issuer: pulumi.Output<string>;
  declare readonly doctype: pulumi.Output<string>;
  declare readonly format: pulumi.Output<string>;
  /** `passed` or `failed`. */
  declare readonly outcome: pulumi.Output<"passed" | "failed">;
  declare readonly latencyMs: pulumi.Output<number>;
  /** Bytes of the document, when one came back. */
  declare readonly size: pulumi.Output<number | undefined>;
  /** Hex sha-256 of the document, when one came back. */
  declare readonly sha256: pulumi.Output<string | undefined>;
  /** For a failure: the issuer's error code (or `check-failed`) and message. */
  declare readonly error: pulumi.Output<{ code: string; message: string } | undefined>;

  constructor(name: string, args: CertificateProbeArgs, opts?: pulumi.CustomResourceOptions) {
    // A secret value goes in only as a Pulumi secret, so state holds it encrypted, whatever the caller passed.
    const parameters = Object.fromEntries(
      Object.entries(args.parameters).map(([field, p]) => [
        field,
        p.from === "secret" ? { from: "secret", variable: p.variable, value: pulumi.secret(p.value ?? "") } : { ...p },
      ]),
    );
    super(
      certificateProbeProvider,
      name,
      {
        outcome: undefined,
        latencyMs: undefined,
        size: undefined,
        sha256: undefined,
        error: undefined,
        ...args,
        parameters,
      },
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "parameters"] },
      "certificates",
      "CertificateProbe",
    );
  }
}
