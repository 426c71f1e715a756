import * as pulumi from "@pulumi/pulumi";
import type { ParameterSource } from "../src/domain/probes/parameter-source";
import { LeanDynamicResource } from "./lean-dynamic-resource";

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
  /**
   * What the probe follows: outputs of the resources whose deployment it proves (the TDE
   * resources' statuses). An update of one changes it, so the probe runs again after it.
   */
  deployment?: pulumi.Input<unknown>;
}

/**
 * A post-deploy probe of a certificate issuer (`pulumi-nodejs:dynamic/certificates:CertificateProbe`):
 * issues one document and checks it, on every `pulumi up`. Register it with `dependsOn` the
 * resources whose deployment it proves. Its provider (providers/certificate-probe-provider.ts) is
 * loaded from dist/ at call time.
 */
export class CertificateProbe extends LeanDynamicResource {
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
  /** The sha-256 of the inputs it last ran with (no secret value): what `diff` compares. */
  declare readonly inputsDigest: pulumi.Output<string>;

  constructor(name: string, args: CertificateProbeArgs, opts?: pulumi.CustomResourceOptions) {
    // A secret value goes in only as a Pulumi secret, so state holds it encrypted, whatever the caller passed.
    const parameters = Object.fromEntries(
      Object.entries(args.parameters).map(([field, p]) => [
        field,
        p.from === "secret" ? { from: "secret", variable: p.variable, value: pulumi.secret(p.value ?? "") } : { ...p },
      ]),
    );
    super(
      "certificateProbe",
      "certificates",
      "CertificateProbe",
      name,
      {
        outcome: undefined,
        latencyMs: undefined,
        size: undefined,
        sha256: undefined,
        error: undefined,
        inputsDigest: undefined,
        ...args,
        parameters,
      },
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "parameters"] },
    );
  }
}
