import type * as pulumi from "@pulumi/pulumi";
import { checkArtifactScan, createArtifactScan, diffArtifactScan, readArtifactScan } from "../src/interfaces/pulumi/artifact-scan-resource";
import { isUnknown } from "./unknown-value";

/**
 * The dynamic provider of the ArtifactScan data source, as the plugin calls it (loaded from dist/ by
 * `providerText("artifactScan")`): each method is one call into
 * `src/interfaces/pulumi/artifact-scan-resource` (see it: the scan happens in check, so a preview judges the
 * file as it is now; delete touches nothing).
 */
export const artifactScanProvider: pulumi.dynamic.ResourceProvider = {
  async check(olds, news) {
    return checkArtifactScan(olds, news, isUnknown);
  },
  async diff(_id, olds, news) {
    return diffArtifactScan(olds, news);
  },
  async create(inputs) {
    return createArtifactScan(inputs);
  },
  async read(id, props) {
    return readArtifactScan(id, props ?? {});
  },
  async update(_id, _olds, news) {
    return { outs: (await createArtifactScan(news)).outs };
  },
  async delete() {
    // A data source only reads: removing it from the stack leaves the file alone.
  },
};
