import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { findProjectDir, scanArtifacts } from "../../domain/artifacts/artifact-gate";
import { localArtifactFiles, localScanCache, warnOnStderr } from "../../usecases/local-artifact-gate";
import { sha256File } from "../../platform/files/file-digest";
import { loadRuleSet, RuleSetError } from "../../domain/artifacts/rule-set";
import { artifactResourceId } from "../../domain/compliance/artifact-verdict";
import type { ArtifactMatchFacts, ArtifactVerdict } from "../../domain/facts/artifact-scans";
import { artifactFactsOf } from "../../domain/facts/artifact-scans";
import { clientSetFromEnv } from "../../clients/client-set";
import { SettingsError } from "../../platform/settings/endpoints";

/**
 * The ArtifactScan data source: one file of `stackwarden:artifacts` judged by the binary analysis
 * gate. Its inputs name the file and the rule set by content (the file's sha-256, the rule set's
 * digest), so a changed file or rule set is a diff; its outputs are the gate's verdict, the same
 * plain data `check` judges (`artifactFactsOf`). State never holds the file's contents, nor the
 * matched bytes: rule names, tags, offsets and lengths only.
 *
 * The provider scans in `check`: Pulumi's dynamic providers do not take part in a preview's create or
 * update (the planned outputs are the checked inputs), so the verdict rides with the checked inputs,
 * and `pulumi preview --policy-pack` judges the file as it is now. A scan is reused while the file's
 * sha-256, the rule set's digest and the path stay the same.
 */

/** What the program passes: paths relative to the Pulumi project directory. */
export interface ArtifactScanInputs {
  path: string;
  sha256: string;
  rulesDigest: string;
  /** The stack's `stackwarden:artifacts.rules`: rule files or folders, relative to the project directory. */
  rules: string[];
}

/** The gate's verdict on the file, as `ArtifactFacts` carries it. */
export interface ArtifactScanVerdict {
  verdict: ArtifactVerdict;
  matches: ArtifactMatchFacts[];
  packer?: string;
  scannedUnpacked: boolean;
  unpackError?: string;
}

export type ArtifactScanOutputs = ArtifactScanInputs & ArtifactScanVerdict;

/** The output properties (declared by the resource, filled in by the provider). */
export const ARTIFACT_SCAN_OUTPUTS = ["verdict", "matches", "packer", "scannedUnpacked", "unpackError"] as const;
const INPUTS = ["path", "sha256", "rulesDigest", "rules"] as const;
const HEX64 = /^[0-9a-f]{64}$/;

export interface CheckFailure {
  property: string;
  reason: string;
}

/** A scan the inputs do not allow: the failure names the input. */
export class ArtifactScanInputError extends Error {
  constructor(
    readonly property: string,
    message: string,
  ) {
    super(message);
    this.name = "ArtifactScanInputError";
  }
}

/** Checks the inputs' shapes (unknown values are not judged). */
export function checkArtifactScanInputs(news: Record<string, unknown>, isUnknown: (v: unknown) => boolean = () => false): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const text = (k: string, ok: (v: string) => boolean, reason: string) => {
    const v = news[k];
    if (isUnknown(v)) return;
    if (typeof v !== "string" || !ok(v)) failures.push({ property: k, reason });
  };
  text("path", (v) => v.length > 0, "path is required: the artifact's path relative to the project directory");
  text("sha256", (v) => HEX64.test(v), "sha256 must be the file's sha-256 as 64 lowercase hex digits");
  text("rulesDigest", (v) => HEX64.test(v), "rulesDigest must be the rule set's digest as 64 lowercase hex digits");
  const rules = news.rules;
  if (!isUnknown(rules) && (!Array.isArray(rules) || rules.length === 0 || rules.some((r) => typeof r !== "string" || !r))) {
    failures.push({ property: "rules", reason: "rules must be a non-empty list of rule files or folders" });
  }
  for (const k of Object.keys(news)) {
    if (k.startsWith("__") || (INPUTS as readonly string[]).includes(k) || (ARTIFACT_SCAN_OUTPUTS as readonly string[]).includes(k))
      continue;
    failures.push({ property: k, reason: "unknown input" });
  }
  return failures;
}

/**
 * Scans the file the inputs name with their rule set and returns the outputs. Throws an
 * ArtifactScanInputError when the file or the rules are not what the inputs say (they changed since
 * the program read them) or the file could not be scanned.
 */
export async function scanArtifactInputs(
  inputs: ArtifactScanInputs,
  env: NodeJS.ProcessEnv = process.env,
  projectDir = findProjectDir(localArtifactFiles, process.cwd()),
): Promise<ArtifactScanOutputs> {
  const file = resolve(projectDir, inputs.path);
  if (!existsSync(file)) throw new ArtifactScanInputError("path", `${inputs.path}: no such file in ${projectDir}`);
  let ruleSet;
  try {
    ruleSet = loadRuleSet(localArtifactFiles, projectDir, inputs.rules, "rules");
  } catch (e) {
    if (e instanceof RuleSetError) throw new ArtifactScanInputError("rules", e.message);
    throw e;
  }
  if (ruleSet.digest !== inputs.rulesDigest) {
    throw new ArtifactScanInputError(
      "rulesDigest",
      `the rule set changed since the program computed its digest (now ${ruleSet.digest}); run again`,
    );
  }
  let service;
  try {
    service = await clientSetFromEnv(env).binaryAnalysis();
  } catch (e) {
    if (e instanceof SettingsError) throw new ArtifactScanInputError("path", `${inputs.path} cannot be scanned: ${e.message}`);
    throw e;
  }
  const report = await scanArtifacts({
    client: service.client,
    artifactFiles: localArtifactFiles,
    cache: localScanCache(),
    warn: warnOnStderr,
    ruleSet,
    files: [file],
    baseDir: projectDir,
  });
  const a = report.artifacts[0];
  if (a.error) throw new ArtifactScanInputError("path", `${inputs.path} could not be scanned: ${a.error}`);
  if (a.sha256 !== inputs.sha256) {
    throw new ArtifactScanInputError("sha256", `${inputs.path} changed since the program hashed it (now sha256 ${a.sha256}); run again`);
  }
  const facts = artifactFactsOf(a, report.rulesDigest);
  return {
    ...inputs,
    verdict: facts.verdict as ArtifactVerdict,
    matches: facts.matches,
    ...(facts.packer ? { packer: facts.packer } : {}),
    scannedUnpacked: facts.scannedUnpacked,
    ...(facts.unpackError ? { unpackError: facts.unpackError } : {}),
  };
}

function inputsOf(o: Record<string, unknown>): ArtifactScanInputs {
  return {
    path: o.path as string,
    sha256: o.sha256 as string,
    rulesDigest: o.rulesDigest as string,
    rules: [...(o.rules as string[])],
  };
}

function verdictOf(o: Record<string, unknown>): Partial<ArtifactScanVerdict> {
  return Object.fromEntries(ARTIFACT_SCAN_OUTPUTS.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** Whether `o` (old inputs or state) holds a verdict for exactly these inputs, so no new scan is needed. */
function holdsVerdictFor(o: Record<string, unknown> | undefined, i: ArtifactScanInputs): boolean {
  return (
    !!o &&
    typeof o.verdict === "string" &&
    o.path === i.path &&
    o.sha256 === i.sha256 &&
    o.rulesDigest === i.rulesDigest &&
    JSON.stringify(o.rules) === JSON.stringify(i.rules)
  );
}

/**
 * The provider's check: the inputs' shapes, then the verdict (reused from `olds` for the same file
 * and rules, else scanned), carried with the checked inputs. A file that cannot be scanned, or that
 * changed since the program hashed it, is a check failure naming the input.
 */
export async function checkArtifactScan(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  isUnknown: (v: unknown) => boolean = () => false,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ inputs: Record<string, unknown>; failures: CheckFailure[] }> {
  const failures = checkArtifactScanInputs(news, isUnknown);
  if (failures.length > 0 || INPUTS.some((k) => isUnknown(news[k]))) return { inputs: news, failures };
  const i = inputsOf(news);
  if (holdsVerdictFor(olds, i)) return { inputs: { ...i, ...verdictOf(olds) }, failures: [] };
  try {
    return { inputs: { ...(await scanArtifactInputs(i, env)) }, failures: [] };
  } catch (e) {
    if (e instanceof ArtifactScanInputError) return { inputs: news, failures: [{ property: e.property, reason: e.message }] };
    throw e;
  }
}

/** Another path is another data source (replace); another file content, rule set or verdict is an update. */
export function diffArtifactScan(olds: Record<string, unknown>, news: Record<string, unknown>): { changes: boolean; replaces: string[] } {
  const replaces = olds.path !== news.path ? ["path"] : [];
  const changed =
    replaces.length > 0 ||
    olds.sha256 !== news.sha256 ||
    olds.rulesDigest !== news.rulesDigest ||
    JSON.stringify(olds.rules) !== JSON.stringify(news.rules) ||
    (news.verdict !== undefined && JSON.stringify(verdictOf(olds)) !== JSON.stringify(verdictOf(news)));
  return { changes: changed, replaces };
}

/** Create and update: the checked inputs' verdict when they carry one for these inputs, else a scan. */
export async function createArtifactScan(
  inputs: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ id: string; outs: ArtifactScanOutputs }> {
  const i = inputsOf(inputs);
  const outs = holdsVerdictFor(inputs, i) ? ({ ...i, ...verdictOf(inputs) } as ArtifactScanOutputs) : await scanArtifactInputs(i, env);
  return { id: artifactResourceId(i.path), outs };
}

/**
 * A refresh: hashes the file and the rule set again and scans when either changed (the verdict is a
 * function of the two). A file that is gone gives an empty id, so the engine drops the data source.
 */
export async function readArtifactScan(
  id: string,
  props: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
  projectDir = findProjectDir(localArtifactFiles, process.cwd()),
): Promise<{ id: string; props?: Record<string, unknown>; inputs?: Record<string, unknown> }> {
  if (typeof props.path !== "string" || !Array.isArray(props.rules)) {
    throw new Error(`an ArtifactScan is read from its state (path and rules): "${id}" cannot be looked up by id alone`);
  }
  const file = resolve(projectDir, props.path);
  if (!existsSync(file)) return { id: "" };
  const { sha256 } = await sha256File(file);
  let rulesDigest: string;
  try {
    rulesDigest = loadRuleSet(localArtifactFiles, projectDir, props.rules as string[], "rules").digest;
  } catch (e) {
    if (e instanceof RuleSetError) throw new Error(`${props.path}: ${e.message}`, { cause: e });
    throw e;
  }
  const now = { ...inputsOf(props), sha256, rulesDigest };
  let outs: ArtifactScanOutputs;
  if (holdsVerdictFor(props, now)) outs = { ...now, ...verdictOf(props) } as ArtifactScanOutputs;
  // A refresh that cannot scan fails with the scan's own message (ArtifactScanInputError names the file).
  else outs = await scanArtifactInputs(now, env, projectDir);
  return { id: artifactResourceId(now.path), props: { ...outs }, inputs: { ...outs } };
}
