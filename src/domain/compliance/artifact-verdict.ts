import { UNKNOWN } from "../../platform/unknown-value";
import type { FactMap } from "../facts/model/compliance-facts";

type ArtifactFacts = FactMap["artifacts"];
type ArtifactVerdict = Exclude<FactMap["artifacts"]["verdict"], typeof UNKNOWN>;

/**
 * What the two artifact rules, the gate's reports (`scan`) and the ArtifactScan data source share:
 * an artifact's identity in findings and exemptions, and the one definition of its verdict.
 */

/** Prefix of an artifact's resource id. */
export const ARTIFACT_ID_PREFIX = "artifact:";

/** The resource id of an artifact in findings and exemptions: `artifact:<path relative to the project directory>`. */
export function artifactResourceId(path: string): string {
  return `${ARTIFACT_ID_PREFIX}${path}`;
}

/** Whether a packed artifact had to be scanned as it is because it could not be unpacked (its payload is unseen). */
export function isPackedNotUnpacked(a: Pick<ArtifactFacts, "packer" | "scannedUnpacked" | "scanError">): boolean {
  return !!a.packer && !a.scannedUnpacked && !a.scanError;
}

/** The verdict of one artifact: `error` (not scanned) > `matched` (a rule matched) > `packed-not-unpackable` > `clean`. */
export function artifactVerdict(
  a: Pick<ArtifactFacts, "packer" | "scannedUnpacked" | "scanError"> & { matches: readonly unknown[] },
): ArtifactVerdict {
  if (a.scanError) return "error";
  if (a.matches.length > 0) return "matched";
  return isPackedNotUnpacked(a) ? "packed-not-unpackable" : "clean";
}
