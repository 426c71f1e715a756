import type * as pulumi from "@pulumi/pulumi";
import { LeanDynamicResource } from "./lean-dynamic-resource";

export interface ArtifactScanArgs {
  /** The file, relative to the Pulumi project directory. */
  path: pulumi.Input<string>;
  /** The file's sha-256 (hex), as the program read it. */
  sha256: pulumi.Input<string>;
  /** The rule set's digest (src/domain/artifacts/rule-set.ts). */
  rulesDigest: pulumi.Input<string>;
  /** The stack's `stackwarden:artifacts.rules`. */
  rules: pulumi.Input<pulumi.Input<string>[]>;
}

/**
 * One artifact the stack ships, judged by the binary analysis gate (type `pulumi-nodejs:dynamic/artifacts:ArtifactScan`).
 * Its provider (providers/artifact-scan-provider.ts) is loaded from dist/ at call time.
 */
export class ArtifactScan extends LeanDynamicResource {
  /** `clean`, `matched` or `packed-not-unpackable`. */
  declare readonly verdict: pulumi.Output<string>;
  /** Each signature rule that matched: rule, ruleFile, tags, offset, length, inUnpackedContent. */
  declare readonly matches: pulumi.Output<Record<string, unknown>[]>;
  declare readonly packer: pulumi.Output<string | undefined>;
  declare readonly scannedUnpacked: pulumi.Output<boolean>;
  declare readonly unpackError: pulumi.Output<string | undefined>;

  constructor(name: string, args: ArtifactScanArgs, opts?: pulumi.CustomResourceOptions) {
    const outputs = { verdict: undefined, matches: undefined, packer: undefined, scannedUnpacked: undefined, unpackError: undefined };
    super("artifactScan", "artifacts", "ArtifactScan", name, { ...outputs, ...args }, opts);
  }
}
