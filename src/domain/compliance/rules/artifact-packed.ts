import { artifactResourceId, isPackedNotUnpacked } from "../artifact-verdict";
import { UNKNOWN } from "../../../platform/unknown-value";
import type { FactMap } from "../../facts/model/compliance-facts";
import type { Finding } from "../finding";
import { defineRule, findingBase, type ResolvedSettings } from "../rule";

type ArtifactFacts = FactMap["artifacts"];

/**
 * Flags an artifact that is packed and could not be unpacked: the signature rules then saw only
 * the packed bytes, so a match in its payload would go unseen.
 */
export const artifactPacked = defineRule<Record<string, never>>({
  id: "artifact-packed",
  title: "Packed artifacts must be unpackable so that their content is scanned",
  description:
    "Flags a file of stackwarden:artifacts that is packed (UPX, ASPack, MPRESS, …) and could not be unpacked, so the signature rules saw only its packed bytes.",
  help: "Ship the artifact unpacked, or packed with UPX (which the gate unpacks); a UPX file that does not unpack is damaged or altered: rebuild it.",
  defaultLevel: "advisory",
  facts: ["artifacts"],
  settings: {},
  packScope: "resource",
  evaluate: (facts, settings) => facts.artifacts.map((a) => judge(a, settings)),
});

function judge(a: ArtifactFacts, settings: ResolvedSettings): Finding {
  const base = {
    ...findingBase(artifactPacked, a, artifactResourceId(a.path), a.path, settings.enforcementLevel),
    location: { file: a.file ?? a.path, ...(a.sha256 ? { sha256: a.sha256 } : {}), ...(a.cached ? { cached: { ...a.cached } } : {}) },
  };
  if (a.verdict === UNKNOWN) return { ...base, verdict: "unknown", message: "the artifact's scan is not known yet" };
  if (a.scanError) return { ...base, verdict: "not-applicable", message: `the artifact could not be scanned: ${a.scanError}` };
  if (!a.packer) return { ...base, verdict: "pass", message: "not packed" };
  if (!isPackedNotUnpacked(a)) return { ...base, verdict: "pass", message: `packed with ${a.packer}; scanned unpacked` };
  const reason = a.unpackError ?? "not unpacked";
  return {
    ...base,
    verdict: "fail",
    message: `Artifact ${a.path} is packed (${a.packer}) and must be unpackable to be scanned: ${reason}`,
    properties: { packer: a.packer, unpackError: reason, sha256: a.sha256 },
  };
}
