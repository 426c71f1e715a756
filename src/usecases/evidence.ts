import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { ClientSet } from "../clients/client-set";
import { resolveActor } from "./audit-actor";
import type { AuditEntry } from "../domain/audit/audit-entry";
import { AuditTrail } from "../domain/audit/audit-trail";
import { enabledRules, factKeysOf } from "../domain/compliance/evaluate";
import {
  bundleFile,
  checkBundleFiles,
  EVIDENCE_FORMAT,
  MANIFEST_FILE,
  parseManifest,
  sha256Of,
  type BundleFile,
  type BundleManifest,
  type BundleProblem,
} from "../domain/evidence/bundle-manifest";
import { findEvidenceAnchor, type AnchorVerdict } from "../domain/evidence/evidence-anchor";
import { findFactKind } from "../domain/facts/registry";
import { acquireStackLock } from "../domain/reconcile/stack-lock";
import { renderComplianceReport, type ComplianceFormat } from "../domain/reports/compliance-formats";
import type { ComplianceReportInput } from "../domain/reports/compliance-report";
import type { StackConfig } from "../domain/stack/stack-config";
import { headCommit } from "../platform/programs/git-checkout";
import type { StateStores } from "../domain/state/state-ports";
import { UsageError } from "../platform/usage-error";
import { checkExitCode, runCheck, type CheckOutcome } from "./check";
import { thisProcess } from "../platform/process-identity";

/** The reports a bundle holds, by file name: the same evaluation in three formats. */
const REPORTS: [string, ComplianceFormat][] = [
  ["report.sarif", "sarif"],
  ["report.json", "json"],
  ["report.md", "markdown"],
];

/** How long writing the anchor waits for the stack's lock (an apply may hold it), in ms. */
const ANCHOR_LOCK_TIMEOUT_MS = 60_000;

/** One evidence bundle to write. */
export interface EvidenceRequest {
  stack: StackConfig;
  stackName: string;
  clients: ClientSet;
  /** The directory report paths (and the stack file's) are relative to. */
  cwd: string;
  state: StateStores;
  /** The bundle's directory: created, and must be empty when it exists. */
  outDir: string;
  toolVersion: string;
  concurrency?: number;
  warn?: (line: string) => void;
  now?: number;
}

/** What writing a bundle did. */
export interface EvidenceOutcome {
  check: CheckOutcome;
  /** The check's exit code: 0, 3 a mandatory violation, 1 an artifact not scanned. */
  exitCode: number;
  manifest: BundleManifest;
  manifestSha256: string;
  /** The audit trail entry that anchors the bundle. */
  anchor: AuditEntry;
  trailPath: string;
}

/**
 * Writes an evidence bundle from ONE check evaluation: the SARIF (passes included), JSON and
 * Markdown reports; every fact the verdicts used, per fact kind, each with the receipts of its reads
 * (when, and Resource Manager's request id); the exemptions in force; and `manifest.json` with the
 * sha-256 of every file. Then appends an `evidence` entry carrying the manifest's hash to the
 * stack's audit trail (under the stack's lock), so the bundle is anchored in the hash chain.
 */
export async function writeEvidenceBundle(req: EvidenceRequest): Promise<EvidenceOutcome> {
  const out = resolve(req.cwd, req.outDir);
  if (existsSync(out) && (!statSync(out).isDirectory() || readdirSync(out).length > 0))
    throw new UsageError(`${req.outDir} exists and is not an empty directory: give --out a new or empty directory for the bundle`);
  const trail = new AuditTrail(req.state.audit, req.stackName);
  // The trail must take an entry before anything is read: a damaged end fails here, not after the check.
  await trail.tail();
  const now = req.now ?? Date.now();
  const check = await runCheck({
    stack: req.stack,
    stackName: req.stackName,
    clients: req.clients,
    cwd: req.cwd,
    state: req.state,
    concurrency: req.concurrency,
    warn: req.warn,
    now,
  });
  const exitCode = checkExitCode(check);
  const generatedAt = new Date(now);
  const input: ComplianceReportInput = {
    stackName: req.stackName,
    file: req.stack.file,
    result: check,
    generatedAt,
    toolVersion: req.toolVersion,
    notes: check.notes,
    // An auditor's record, not a comment: its Markdown lists every finding, each pass with its evidence, whatever its length.
    show: { passed: true, notApplicable: true, verbose: true },
    markdownLimit: Number.POSITIVE_INFINITY,
  };
  const files = new Map<string, string>();
  for (const [name, format] of REPORTS)
    files.set(name, `${renderComplianceReport({ ...input, sarifPasses: format === "sarif" }, format)}\n`);
  for (const key of factKeysOf(enabledRules(req.stack.policies))) {
    const list = (check.facts as unknown as Record<string, unknown[]>)[key] ?? [];
    const doc = { kind: key, title: findFactKind(key)?.title ?? key, count: list.length, facts: list };
    files.set(`facts/${key}.json`, `${JSON.stringify(doc, null, 2)}\n`);
  }
  files.set("exemptions.json", `${JSON.stringify(exemptionsInForce(check), null, 2)}\n`);

  const listed: BundleFile[] = [];
  mkdirSync(out, { recursive: true });
  for (const [path, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const target = join(out, ...path.split("/"));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    listed.push(bundleFile(path, text));
  }
  const stackFilePath = resolve(req.cwd, req.stack.file);
  const manifest: BundleManifest = {
    format: EVIDENCE_FORMAT,
    stack: req.stackName,
    stackFile: req.stack.file,
    stackFileSha256: sha256Of(readFileSync(stackFilePath)),
    generatedAt: generatedAt.toISOString(),
    tool: { name: "stackwarden", version: req.toolVersion },
    summary: { ...check.summary },
    exitCode,
    files: listed,
  };
  const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
  writeFileSync(join(out, MANIFEST_FILE), manifestText);
  const manifestSha256 = sha256Of(manifestText);

  const who = await resolveActor(req.clients.actor);
  const lock = await acquireStackLock(req.state.locks, {
    stack: req.stackName,
    command: "evidence",
    holderProcess: thisProcess(),
    timeoutMs: ANCHOR_LOCK_TIMEOUT_MS,
  });
  let anchor: AuditEntry;
  try {
    anchor = await trail.append({
      at: new Date().toISOString(),
      stack: req.stackName,
      command: "evidence",
      who,
      what: [],
      commit: await headCommit(dirname(stackFilePath)),
      exitCode,
      note: `evidence bundle of ${listed.length + 1} files (${check.summary.mandatoryViolations} mandatory, ${check.summary.advisoryViolations} advisory violations)`,
      evidence: { manifestSha256, files: listed.length + 1 },
    });
  } finally {
    await lock.release();
  }
  return { check, exitCode, manifest, manifestSha256, anchor, trailPath: trail.where };
}

/** The exemptions that applied when the bundle was written: whom they exempt from what, why, until when. */
function exemptionsInForce(check: CheckOutcome) {
  return check.exemptions
    .filter((s) => s.active)
    .map((s) => ({
      resourceId: s.exemption.resourceId,
      rules: s.exemption.rules ?? "all",
      reason: s.exemption.reason,
      expires: s.exemption.expires ?? null,
      findingsExempted: s.applied,
      ...(s.exemption.source ? { line: s.exemption.source.line } : {}),
    }));
}

/** What verifying a bundle found. */
export interface EvidenceVerdict {
  /** Every file matches the manifest, and an intact audit trail holds the manifest's hash. */
  intact: boolean;
  stack?: string;
  manifestSha256?: string;
  /** Files that were changed, removed or added, and a manifest that is not one. */
  problems: BundleProblem[];
  /** The anchor in the trail (absent when the manifest could not be read). */
  anchor?: AnchorVerdict;
  trailPath?: string;
}

/**
 * Verifies a bundle: recomputes the sha-256 of every file the manifest lists (and finds files it does
 * not list), then looks for the `evidence` entry carrying the manifest's hash in the stack's audit
 * trail (`trailFile`, else `<audit dir>/<stack>.jsonl`) and checks that trail's chain. A directory
 * without a manifest, or a trail that cannot be read, is a UsageError (exit 1), not a verdict.
 */
export async function verifyEvidenceBundle(req: {
  dir: string;
  cwd: string;
  state: Pick<StateStores, "audit">;
  trailFile?: string;
  /** A head of the trail kept elsewhere (`audit verify` prints it): it must be in the trail. */
  expectHead?: string;
}): Promise<EvidenceVerdict> {
  const dir = resolve(req.cwd, req.dir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`${req.dir} is not a directory: give the bundle's directory`);
  const manifestPath = join(dir, MANIFEST_FILE);
  if (!existsSync(manifestPath))
    throw new UsageError(`${req.dir} has no ${MANIFEST_FILE}: it is not an evidence bundle (or its manifest was removed)`);
  const manifestBytes = readFileSync(manifestPath);
  const manifestSha256 = sha256Of(manifestBytes);
  const parsed = parseManifest(manifestBytes.toString("utf8"));
  if (!parsed.manifest)
    return {
      intact: false,
      manifestSha256,
      problems: [{ path: MANIFEST_FILE, kind: "manifest", message: `${parsed.problem}: it was edited` }],
    };
  const manifest = parsed.manifest;
  const present = filesUnder(dir);
  const problems = checkBundleFiles(manifest, present, (p) => {
    const f = join(dir, ...p.split("/"));
    return existsSync(f) && statSync(f).isFile() ? readFileSync(f) : undefined;
  });
  const trailPath = req.trailFile ? resolve(req.cwd, req.trailFile) : req.state.audit.where(manifest.stack);
  let trailText: string | undefined;
  try {
    trailText = req.trailFile ? readFileSync(trailPath, "utf8") : await req.state.audit.read(manifest.stack);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") throw new UsageError(`cannot read the audit trail ${trailPath}: ${(e as Error).message}`);
  }
  if (trailText === undefined)
    throw new UsageError(
      `no audit trail at ${trailPath} to find the bundle's anchor in: give --audit-dir (or --trail FILE) where the stack's trail is`,
    );
  const anchor = findEvidenceAnchor(trailText, manifestSha256, req.expectHead);
  const intact = problems.length === 0 && anchor.trailIntact && anchor.found !== undefined;
  return { intact, stack: manifest.stack, manifestSha256, problems, anchor, trailPath };
}

/** Every file under a directory, relative to it, `/` separators, sorted. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(dir, p).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}
