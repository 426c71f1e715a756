import { artifactResourceId } from "../artifact-verdict";
import { UNKNOWN } from "../../../platform/unknown-value";
import type { FactMap } from "../../facts/model/compliance-facts";
import type { Finding } from "../finding";
import { defineRule, findingBase, type ResolvedSettings } from "../rule";

type ArtifactFacts = FactMap["artifacts"];
type ArtifactMatchFacts = FactMap["artifacts"]["matches"][number];

/**
 * Flags every signature (YARA) rule that matches an artifact of `stackwarden:artifacts`, after
 * unpacking when the artifact is packed: one finding per matching rule, naming the artifact, the
 * rule and the offset. An artifact that could not be scanned is not applicable (and `check` fails on it).
 */
export const artifactSignatureClean = defineRule<Record<string, never>>({
  id: "artifact-signature-clean",
  title: "Artifacts the stack ships must not match a signature rule",
  description:
    "Flags each signature (YARA) rule that matches a file of stackwarden:artifacts, after unpacking it when it is packed with UPX, with the rule file and the offset of the match.",
  help: "Remove what the rule matched from the artifact (or the artifact from stackwarden:artifacts.paths) and build it again; if the rule is wrong, fix it in stackwarden:artifacts.rules. Exempt one artifact under stackwarden:exemptions (resourceId: artifact:<path>) only with a reason and an expiry.",
  defaultLevel: "mandatory",
  facts: ["artifacts"],
  settings: {},
  packScope: "resource",
  evaluate: (facts, settings) => facts.artifacts.flatMap((a) => judge(a, settings)),
});

function judge(a: ArtifactFacts, settings: ResolvedSettings): Finding[] {
  const base = {
    ...findingBase(artifactSignatureClean, a, artifactResourceId(a.path), a.path, settings.enforcementLevel),
    location: { file: a.file ?? a.path, ...(a.sha256 ? { sha256: a.sha256 } : {}), ...(a.cached ? { cached: { ...a.cached } } : {}) },
  };
  if (a.verdict === UNKNOWN) return [{ ...base, verdict: "unknown", message: "the artifact's scan is not known yet" }];
  if (a.scanError) {
    return [
      { ...base, verdict: "not-applicable", message: `the artifact could not be scanned, so it is not known to be clean: ${a.scanError}` },
    ];
  }
  if (a.matches.length === 0) {
    const how = a.scannedUnpacked ? ` (scanned unpacked${a.packer ? `: ${a.packer}` : ""})` : "";
    return [{ ...base, verdict: "pass", message: `no signature rule matches${how}; rules sha256:${a.rulesDigest.slice(0, 16)}…` }];
  }
  return a.matches.map((m) => ({
    ...base,
    verdict: "fail" as const,
    facet: m.rule,
    message: `Artifact ${a.path} must not match signature rule ${m.rule} (${m.ruleFile}): ${where(m, a)}`,
    location: {
      ...base.location,
      // An offset in the unpacked content is no place in the file: SARIF gets the file alone.
      ...(m.offset !== undefined && !m.inUnpackedContent ? { byteOffset: m.offset, ...(m.length ? { byteLength: m.length } : {}) } : {}),
    },
    properties: {
      signatureRule: m.rule,
      ruleFile: m.ruleFile,
      tags: m.tags,
      ...(m.offset !== undefined ? { offset: m.offset, offsetIn: m.inUnpackedContent ? "unpacked-content" : "file" } : {}),
      ...(a.packer ? { packer: a.packer } : {}),
      sha256: a.sha256,
    },
  }));
}

function where(m: ArtifactMatchFacts, a: ArtifactFacts): string {
  if (m.offset === undefined) return "matched by its condition (no string offset)";
  const at = `0x${m.offset.toString(16)}`;
  return m.inUnpackedContent
    ? `matched at offset ${at} of its unpacked content${a.packer ? ` (packed with ${a.packer})` : ""}, not of the file itself`
    : `matched at offset ${at}`;
}
