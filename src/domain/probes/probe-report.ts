import type { ProbeResult, ProbeRun } from "./probe-runner";

/** The JSON document of `probe --output json`: only what a probe keeps (no parameter, no document content). */
export function probeDocument(stack: string, file: string, run: ProbeRun): object {
  return {
    stack,
    file,
    endpoint: run.endpoint,
    startedAt: run.startedAt,
    summary: { probes: run.results.length, passed: run.passed, failed: run.failed },
    results: run.results,
  };
}

/** The table of `probe --output table`: one line per probe, a failure's error on the line under it. */
export function renderProbeTable(stack: string, run: ProbeRun): string {
  if (run.results.length === 0) return `Stack ${stack} has no stackwarden:probes.`;
  const lines = [`Probes of stack ${stack} against ${run.endpoint}`];
  const nameWidth = Math.max(...run.results.map((r) => r.name.length));
  const targetWidth = Math.max(...run.results.map((r) => `${r.issuer}/${r.doctype}`.length));
  for (const r of run.results) {
    const cells = [
      r.outcome === "passed" ? "PASS" : "FAIL",
      r.name.padEnd(nameWidth),
      `${r.issuer}/${r.doctype}`.padEnd(targetWidth),
      r.format.padEnd(3),
      `${r.latencyMs} ms`.padStart(8),
      r.size !== undefined ? formatSize(r.size).padStart(9) : "".padStart(9),
      r.sha256 ? `sha256 ${r.sha256.slice(0, 16)}` : "",
    ];
    lines.push(`  ${cells.join("  ").trimEnd()}`);
    if (r.error) lines.push(`        ${describeFailure(r)}`);
  }
  lines.push(`${run.results.length} probe(s): ${run.passed} passed, ${run.failed} failed`);
  return lines.join("\n");
}

/** One line for a failed probe: the issuer's status and error, or what the check found. */
export function describeFailure(r: ProbeResult): string {
  if (!r.error) return "";
  if (r.error.code === "check-failed") return `check failed: ${r.error.message}`;
  return `${r.status ? `HTTP ${r.status} ` : ""}${r.error.code}: ${r.error.message}`;
}

function formatSize(bytes: number): string {
  return bytes < 10_000 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}
