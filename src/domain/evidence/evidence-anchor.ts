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
 * chain on the way: a bundle is anchored only by an entry of an intact trail. With `expectHead` (a
 * head of the trail published elsewhere, as `audit verify` prints it), that head must be in the
 * trail too: whoever can write both a bundle and its trail could rehash a manifest and append a
 * forged anchor, but cannot keep a head published elsewhere. Pure.
 */
export function findEvidenceAnchor(trailText: string, manifestSha256: string, expectHead?: string): AnchorVerdict {
  const trail = verifyTrailText(trailText, expectHead);
  const problems = trail.problems.map((p) => `the audit trail's line ${p.line} was ${p.kind}: ${p.message}`);
  if (trail.checkpoint && !trail.checkpoint.found)
    problems.push(
      `the expected head ${trail.checkpoint.hash} is not in the audit trail: it was cut short or rewritten from some line on (a forged anchor can only be appended to a rewritten trail)`,
    );
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
  return { trailIntact: trail.problems.length === 0 && (!trail.checkpoint || !!trail.checkpoint.found), found, problems };
}
