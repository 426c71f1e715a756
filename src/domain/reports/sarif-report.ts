import { createHash } from "node:crypto";
import type { Finding } from "../compliance/finding";
import type { FileLocation } from "../compliance/finding";
import { allRules } from "../compliance/registry";
import { ruleName } from "../compliance/rule";
import type { ComplianceReportInput } from "./compliance-report";
import { sarifControls } from "./sarif-taxonomies";

/**
 * A SARIF 2.1.0 log for code scanning: stable ruleIds, partialFingerprints so re-runs update
 * alerts instead of opening new ones, and locations at the stack file's line for each resource,
 * or at the file a finding is about (an artifact: `run.artifacts` with its sha-256, a byte region
 * when known). Exempt findings are included as suppressed results. A result about an artifact whose
 * scan came from the scan cache, and that artifact's entry in `run.artifacts`, say so in their
 * properties (`fromScanCache: true`, `scannedAt`: when the bytes were scanned).
 */
export function renderSarif(r: ComplianceReportInput): string {
  const registered = allRules();
  // Each rule's controls (CIS, Azure Policy) are taxa of run.taxonomies, related to the rule.
  const controls = sarifControls(registered);
  const rules = registered.map((rule) => ({
    id: rule.id,
    name: ruleName(rule.id),
    shortDescription: { text: rule.title },
    fullDescription: { text: rule.description },
    help: { text: rule.help },
    defaultConfiguration: { level: sarifLevel(rule.defaultLevel) },
    ...(rule.controls?.length ? { relationships: controls.relationshipsOf(rule) } : {}),
    properties: { tags: ["security", "compliance", ...controls.tagsOf(rule)] },
  }));
  const index = new Map(registered.map((rule, i) => [rule.id, i]));
  const artifacts = fileArtifacts(r.result.findings);
  const results = r.result.findings
    .filter((f) => f.verdict === "fail" || f.verdict === "exempt" || (r.sarifPasses && f.verdict === "pass"))
    .map((f) => result(f, r.file, index.get(f.ruleId) ?? -1, artifacts.index));
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "stackwarden",
            version: r.toolVersion,
            semanticVersion: r.toolVersion,
            rules,
            ...(controls.taxonomies.length ? { supportedTaxonomies: controls.supportedTaxonomies } : {}),
          },
        },
        automationDetails: { id: `stackwarden/${r.stackName}/` },
        invocations: [
          {
            executionSuccessful: true,
            endTimeUtc: r.generatedAt.toISOString(),
            ...(r.notes?.length ? { toolExecutionNotifications: r.notes.map((text) => ({ level: "note", message: { text } })) } : {}),
          },
        ],
        ...(artifacts.list.length ? { artifacts: artifacts.list } : {}),
        ...(controls.taxonomies.length ? { taxonomies: controls.taxonomies } : {}),
        results,
        ...(r.coverage ? { properties: { coverage: r.coverage } } : {}),
      },
    ],
  };
  return JSON.stringify(log, null, 2);
}

function result(f: Finding, file: string, ruleIndex: number, artifactIndex: Map<string, number>) {
  const stackFile = {
    artifactLocation: { uri: toUri(file) },
    region: { startLine: f.source?.line ?? 1, startColumn: f.source?.column ?? 1 },
  };
  const logicalLocations = [{ fullyQualifiedName: f.resourceId, kind: "resource" }];
  const out: Record<string, unknown> = {
    ruleId: f.ruleId,
    ruleIndex,
    // A pass is evidence, not a problem: SARIF's kind `pass`, whose level must be `none`.
    ...(f.verdict === "pass" ? { kind: "pass", level: "none" } : { level: sarifLevel(f.level) }),
    message: { text: f.message },
    // A finding about a file (an artifact) points at that file, at the byte offset when it is one of the
    // file itself; the stack file's line that names it follows as a related location.
    locations: [{ physicalLocation: f.location ? fileLocation(f.location, artifactIndex) : stackFile, logicalLocations }],
    ...(f.location && f.source
      ? { relatedLocations: [{ id: 1, physicalLocation: stackFile, message: { text: `named in the stack file ${toUri(file)}` } }] }
      : {}),
    partialFingerprints: { "stackwardenFinding/v1": fingerprint(f) },
    properties: { resourceId: f.resourceId, enforcementLevel: f.level, ...f.properties, ...fromScanCache(f.location) },
  };
  if (f.verdict === "exempt" && f.exemption) {
    out.suppressions = [{ kind: "external", status: "accepted", justification: f.exemption.reason }];
  }
  return out;
}

/** A finding's file: its uri, the index of its entry in `run.artifacts`, and the region of its bytes when known. */
function fileLocation(l: FileLocation, artifactIndex: Map<string, number>) {
  const uri = toUri(l.file);
  return {
    artifactLocation: { uri, index: artifactIndex.get(uri) },
    ...(l.byteOffset !== undefined ? { region: { byteOffset: l.byteOffset, ...(l.byteLength ? { byteLength: l.byteLength } : {}) } } : {}),
  };
}

/** `run.artifacts`: each file a finding is about (passing ones too: every scanned artifact), once, with its sha-256. */
function fileArtifacts(findings: readonly Finding[]): { list: object[]; index: Map<string, number> } {
  const index = new Map<string, number>();
  const list: object[] = [];
  for (const f of findings) {
    if (!f.location) continue;
    const uri = toUri(f.location.file);
    if (index.has(uri)) continue;
    index.set(uri, list.length);
    const cached = fromScanCache(f.location);
    list.push({
      location: { uri },
      ...(f.location.sha256 ? { hashes: { "sha-256": f.location.sha256 } } : {}),
      ...(cached.fromScanCache ? { properties: cached } : {}),
    });
  }
  return { list, index };
}

/** The properties that say a file's scan came from the scan cache, and when it was scanned; none otherwise. */
function fromScanCache(l: FileLocation | undefined): { fromScanCache?: true; scannedAt?: string } {
  return l?.cached ? { fromScanCache: true, scannedAt: l.cached.scannedAt } : {};
}

function toUri(path: string): string {
  return path.split("\\").join("/");
}

/**
 * Stable across runs and line moves: the rule and the resource, nothing else (plus the finding's facet
 * where a rule reports several on one resource, e.g. each signature that matched an artifact).
 */
function fingerprint(f: Finding): string {
  const facet = f.facet !== undefined ? `|${f.facet}` : "";
  return createHash("sha256").update(`${f.ruleId}|${f.resourceId.toLowerCase()}${facet}`).digest("hex");
}

function sarifLevel(level: string): "error" | "warning" | "none" {
  return level === "mandatory" ? "error" : level === "advisory" ? "warning" : "none";
}
