import { stackFileKey } from "../../platform/settings/state-dirs";
import { StackwardenError } from "../../platform/errors/stackwarden-error";
import type { DocumentStore } from "../state/state-ports";
import type { ProbeResult, ProbeRun } from "./probe-runner";

/**
 * The last probe run of a stack, as kept on disk for `check` (`<probe dir>/<stack>.json`). It holds
 * what a probe keeps and nothing else: per probe its identity from the stack, the outcome, the
 * latency, the document's size and sha-256, and for a failure the issuer's status, error code and
 * message (already cleared of the probe's parameter values). No parameter, no document content.
 */
export interface StoredProbeRun {
  version: 1;
  stack: string;
  /** What ran the probes: `probe`, `apply --probe`, `start`. */
  command: string;
  /** The issuers' endpoint, redacted. */
  endpoint: string;
  startedAt: string;
  finishedAt: string;
  results: ProbeResult[];
}

/** The document of a stack's last probe run: `<stack>.json` (in the probe directory, or the store's `probes/`). */
export function probeResultsName(stack: string): string {
  return `${stackFileKey(stack)}.json`;
}

/** The fields of a result that are kept; anything else a result might carry is dropped. */
function kept(r: ProbeResult): ProbeResult {
  return {
    name: r.name,
    issuer: r.issuer,
    doctype: r.doctype,
    format: r.format,
    outcome: r.outcome,
    latencyMs: r.latencyMs,
    ...(r.status !== undefined ? { status: r.status } : {}),
    ...(r.size !== undefined ? { size: r.size } : {}),
    ...(r.sha256 !== undefined ? { sha256: r.sha256 } : {}),
    ...(r.error ? { error: { code: r.error.code, message: r.error.message } } : {}),
    ...(r.source ? { source: { file: r.source.file, line: r.source.line, column: r.source.column } } : {}),
  };
}

/**
 * Replaces the stack's last probe run with this one, atomically (a reader, or a crash, never sees
 * half of it). Returns where it was kept.
 */
export async function writeProbeRun(
  store: DocumentStore,
  stack: string,
  command: string,
  run: ProbeRun,
  finishedAt = new Date(),
): Promise<string> {
  const name = probeResultsName(stack);
  const doc: StoredProbeRun = {
    version: 1,
    stack,
    command,
    endpoint: run.endpoint,
    startedAt: run.startedAt,
    finishedAt: finishedAt.toISOString(),
    results: run.results.map(kept),
  };
  try {
    await store.put(name, `${JSON.stringify(doc, null, 2)}\n`);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new StackwardenError(
      "SW_STATE_UNAVAILABLE",
      `cannot keep the probe results in ${store.where(name)}: ${code ?? (e as Error).message}; set --probe-dir or STACKWARDEN_PROBE_DIR to a writable directory`,
      { cause: e },
    );
  }
  return store.where(name);
}

/** What reading a stack's last probe run found. */
export type ProbeRunLookup =
  { found: true; path: string; run: StoredProbeRun } | { found: false; path: string; reason: "missing" | "unreadable"; detail?: string };

/**
 * Reads a stack's last probe run. A missing file is no error (the probes have not run here yet),
 * and neither is a damaged one: `check` says what it found and judges no probe, rather than fail
 * a compliance run over an advisory side file. Results are read tolerantly; only entries without
 * a name or an outcome are dropped.
 */
export async function readProbeRun(store: DocumentStore, stack: string): Promise<ProbeRunLookup> {
  const name = probeResultsName(stack);
  const path = store.where(name);
  let text: string;
  try {
    const doc = await store.get(name);
    if (!doc) return { found: false, path, reason: "missing" };
    text = doc.text;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { found: false, path, reason: "unreadable", detail: `cannot read it (${code ?? (e as Error).message})` };
  }
  let doc: Partial<StoredProbeRun>;
  try {
    doc = JSON.parse(text) as Partial<StoredProbeRun>;
  } catch {
    return { found: false, path, reason: "unreadable", detail: "it is not JSON" };
  }
  if (!doc || typeof doc !== "object" || !Array.isArray(doc.results)) {
    return { found: false, path, reason: "unreadable", detail: "it holds no results list" };
  }
  const results = doc.results
    .filter(
      (r): r is ProbeResult =>
        !!r && typeof r === "object" && typeof r.name === "string" && (r.outcome === "passed" || r.outcome === "failed"),
    )
    .map(kept);
  return {
    found: true,
    path,
    run: {
      version: 1,
      stack: typeof doc.stack === "string" ? doc.stack : stack,
      command: typeof doc.command === "string" ? doc.command : "unknown",
      endpoint: typeof doc.endpoint === "string" ? doc.endpoint : "unknown",
      startedAt: typeof doc.startedAt === "string" ? doc.startedAt : "unknown",
      finishedAt: typeof doc.finishedAt === "string" ? doc.finishedAt : "unknown",
      results,
    },
  };
}
