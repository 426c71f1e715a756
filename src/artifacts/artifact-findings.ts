import type { ArtifactResult, ArtifactScanReport } from "./artifact-scan";

/** A signature match, as `artifact-signature-clean` reports it. */
export interface SignatureFinding {
  path: string;
  sha256: string;
  rule: string;
  ruleFile: string;
  tags: string[];
  /** Byte offset of the first matched string, in the file (or in its unpacked content: see `inUnpackedContent`). */
  offset?: number;
  inUnpackedContent: boolean;
  message: string;
}

/** A packed artifact that could not be unpacked, as `artifact-packed` reports it. */
export interface PackedFinding {
  path: string;
  sha256: string;
  packer: string;
  reason: string;
  message: string;
}

/** Every rule match of every artifact, one finding each, in artifact then rule order. */
export function signatureFindings(report: Pick<ArtifactScanReport, "artifacts">): SignatureFinding[] {
  return report.artifacts.flatMap((a) =>
    a.matches.map((m) => ({
      path: a.path,
      sha256: a.sha256,
      rule: m.rule,
      ruleFile: m.ruleFile,
      tags: m.tags,
      offset: m.offset,
      inUnpackedContent: a.scannedUnpacked,
      message: `artifact ${a.path} must not match signature rule ${m.rule} (${m.ruleFile})${m.offset !== undefined ? `: matched at offset 0x${m.offset.toString(16)}${a.scannedUnpacked ? " of its unpacked content" : ""}` : ""}`,
    })),
  );
}

/** Artifacts that are packed and could not be unpacked (scanned as they are, so a packed payload may hide a match). */
export function packedFindings(report: Pick<ArtifactScanReport, "artifacts">): PackedFinding[] {
  return report.artifacts
    .filter((a): a is ArtifactResult & { packer: NonNullable<ArtifactResult["packer"]> } => !!a.packer && !a.scannedUnpacked && !a.error)
    .map((a) => {
      const packer = `${a.packer.name}${a.packer.version ? ` ${a.packer.version}` : ""}`;
      const reason = a.unpackError ?? "not unpacked";
      return {
        path: a.path,
        sha256: a.sha256,
        packer,
        reason,
        message: `artifact ${a.path} is packed (${packer}) and must be unpackable to be scanned: ${reason}`,
      };
    });
}

/** Artifacts the gate could not scan at all. */
export function scanErrors(report: Pick<ArtifactScanReport, "artifacts">): { path: string; error: string }[] {
  return report.artifacts.filter((a) => a.verdict === "error").map((a) => ({ path: a.path, error: a.error ?? "not scanned" }));
}
