import { verifyTrailText } from "../audit/audit-chain";
import type { AuditEntry } from "../audit/audit-entry";

/** Where a bundle's anchor is in its stack's audit trail, and whether the trail holds. */
export interface AnchorVerdict {
  /** The trail's chain is intact (no line edited, removed or reordered). */
  trailIntact: boolean;
  /** The entry carrying the manifest's hash, when one does. */
  found?: { line: number; seq: number; at: string };
  /** What is wrong, in one sentence each. */
  problems: string[];
}

/**
 * Finds the `evidence` entry that carries `manifestSha256` in a trail's text, and checks the trail's
 * chain on the way: a bundle is anchored only by an entry of an intact trail. Pure.
 */
export function findEvidenceAnchor(trailText: string, manifestSha256: string): AnchorVerdict {
  const trail = verifyTrailText(trailText);
  const problems = trail.problems.map((p) => `the audit trail's line ${p.line} was ${p.kind}: ${p.message}`);
  let found: AnchorVerdict["found"];
  trailText.split("\n").forEach((line, i) => {
    if (found || !line.includes(manifestSha256)) return;
    try {
      const e = JSON.parse(line) as Partial<AuditEntry>;
      if (e.command === "evidence" && e.evidence?.manifestSha256 === manifestSha256)
        found = { line: i + 1, seq: e.seq ?? 0, at: String(e.at ?? "") };
    } catch {
      /* an unparseable line is reported by the chain check */
    }
  });
  if (!found)
    problems.push(
      `no evidence entry of the audit trail carries the manifest's sha-256 ${manifestSha256}: the bundle is not anchored (the entry was removed, or the manifest was changed)`,
    );
  return { trailIntact: trail.problems.length === 0, found, problems };
}
