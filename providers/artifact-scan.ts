import * as pulumi from "@pulumi/pulumi";
import type * as ArtifactCore from "../src/resources/artifact-scan-resource";
import { isUnknown, loadCore } from "./load-core";

/**
 * The dynamic provider of the ArtifactScan data source: each method is one call into
 * `src/resources/artifact-scan-resource` (see it: the scan happens in check, so a preview judges the
 * file as it is now; delete touches nothing).
 */
export const artifactScanProvider: pulumi.dynamic.ResourceProvider = {
  async check(olds, news) {
    const core = loadCore<typeof ArtifactCore>("src/resources/artifact-scan-resource");
    return core.checkArtifactScan(olds, news, isUnknown);
  },
  async diff(_id, olds, news) {
    const core = loadCore<typeof ArtifactCore>("src/resources/artifact-scan-resource");
    return core.diffArtifactScan(olds, news);
  },
  async create(inputs) {
    const core = loadCore<typeof ArtifactCore>("src/resources/artifact-scan-resource");
    return core.createArtifactScan(inputs);
  },
  async read(id, props) {
    const core = loadCore<typeof ArtifactCore>("src/resources/artifact-scan-resource");
    return core.readArtifactScan(id, props ?? {});
  },
  async update(_id, _olds, news) {
    const core = loadCore<typeof ArtifactCore>("src/resources/artifact-scan-resource");
    return { outs: (await core.createArtifactScan(news)).outs };
  },
  async delete() {
    // A data source only reads: removing it from the stack leaves the file alone.
  },
};

export interface ArtifactScanArgs {
  /** The file, relative to the Pulumi project directory. */
  path: pulumi.Input<string>;
  /** The file's sha-256 (hex), as the program read it. */
  sha256: pulumi.Input<string>;
  /** The rule set's digest (src/artifacts/rule-set.ts). */
  rulesDigest: pulumi.Input<string>;
  /** The stack's `stackwarden:artifacts.rules`. */
  rules: pulumi.Input<pulumi.Input<string>[]>;
}

/** One artifact the stack ships, judged by the binary analysis gate (type `pulumi-nodejs:dynamic/artifacts:ArtifactScan`). */
export class ArtifactScan extends pulumi.dynamic.Resource {
  /** `clean`, `matched` or `packed-not-unpackable`. */
  declare readonly verdict: pulumi.Output<string>;
  /** Each signature rule that matched: rule, ruleFile, tags, offset, length, inUnpackedContent. */
  declare readonly matches: pulumi.Output<Record<string, unknown>[]>;
  declare readonly packer: pulumi.Output<string | undefined>;
  declare readonly scannedUnpacked: pulumi.Output<boolean>;
  declare readonly unpackError: pulumi.Output<string | undefined>;

  constructor(name: string, args: ArtifactScanArgs, opts?: pulumi.CustomResourceOptions) {
    const outputs = { verdict: undefined, matches: undefined, packer: undefined, scannedUnpacked: undefined, unpackError: undefined };
    super(artifactScanProvider, name, { ...outputs, ...args }, opts, "artifacts", "ArtifactScan");
  }
}
