import type { ArtifactResult, ArtifactScanReport } from "../artifacts/artifact-gate";

/**
 * Renders the gate's findings as a table: one line per artifact, one more per extra match, then a
 * summary line. An artifact whose result came from the scan cache says `(cached)` on its first line.
 */
export function renderArtifactScanTable(report: ArtifactScanReport): string {
  const rows: [string, string, string][] = [];
  for (const a of report.artifacts) {
    const details = detailsOf(a);
    if (a.cached) details[0] += " (cached)";
    details.forEach((d, i) => rows.push([i === 0 ? a.path : "", i === 0 ? a.verdict : "", d]));
  }
  const w = [0, 1].map((i) => Math.max(i === 0 ? "ARTIFACT".length : "VERDICT".length, ...rows.map((r) => r[i].length)));
  const lines = [`${"ARTIFACT".padEnd(w[0])}  ${"VERDICT".padEnd(w[1])}  DETAIL`];
  for (const r of rows) lines.push(`${r[0].padEnd(w[0])}  ${r[1].padEnd(w[1])}  ${r[2]}`.trimEnd());
  lines.push(summaryLine(report));
  return lines.join("\n");
}

function detailsOf(a: ArtifactResult): string[] {
  const packed = a.packer ? `packed with ${a.packer.name}${a.packer.version ? ` ${a.packer.version}` : ""}` : "";
  const out: string[] = [];
  for (const m of a.matches) {
    const at = m.offset !== undefined ? ` at 0x${m.offset.toString(16)}${a.scannedUnpacked ? " (unpacked content)" : ""}` : "";
    out.push(`${m.rule} (${m.ruleFile})${at}${m.tags.length ? ` [${m.tags.join(", ")}]` : ""}`);
  }
  if (a.error) out.push(a.error);
  if (a.packer)
    out.push(a.scannedUnpacked ? `${packed}; scanned unpacked` : `${packed}; not unpacked: ${a.unpackError ?? "unknown reason"}`);
  if (out.length === 0) out.push(`sha256 ${a.sha256}`);
  return out;
}

/** `N artifacts: a matched, b packed-not-unpackable, c errors; rules sha256:… (k files)`, and `; n from the scan cache` when some were. */
export function summaryLine(report: ArtifactScanReport): string {
  const count = (v: ArtifactResult["verdict"]) => report.artifacts.filter((a) => a.verdict === v).length;
  const cached = report.artifacts.filter((a) => a.cached).length;
  return `${report.artifacts.length} artifact(s): ${count("matched")} matched, ${count("packed-not-unpackable")} packed-not-unpackable, ${count("error")} error(s), ${count("clean")} clean; rules sha256:${report.rulesDigest.slice(0, 16)}… (${report.ruleFiles.length} file(s))${cached ? `; ${cached} from the scan cache` : ""}`;
}
