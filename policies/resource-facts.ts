import { UnknownValueError } from "@pulumi/policy";
import { sqlDatabaseId } from "../src/platform/arm/resource-id";
import {
  emptyFacts,
  UNKNOWN,
  type ArtifactFacts,
  type ArtifactMatchFacts,
  type ArtifactVerdict,
  type ComplianceFacts,
  type DatabaseFacts,
  type Maybe,
  type ProbeFacts,
  type TierAdvisorFacts,
  type UsageFacts,
} from "../src/domain/compliance/facts";
import { pickAdvisor } from "../src/domain/facts/advisor-facts";
import { usageFacts as usageFact } from "../src/domain/facts/usage-facts";
import type { Usage } from "../src/services/batchai/types";

/** Type tokens of the resources the policies look at. */
export const TYPES = {
  tde: "pulumi-nodejs:dynamic/sql:TransparentDataEncryption",
  advisors: "pulumi-nodejs:dynamic/sql:ServiceTierAdvisors",
  usages: "pulumi-nodejs:dynamic/batchai:Usages",
  artifactScan: "pulumi-nodejs:dynamic/artifacts:ArtifactScan",
  probe: "pulumi-nodejs:dynamic/certificates:CertificateProbe",
  workspace: "pulumi-nodejs:dynamic/batchai:Workspace",
  cluster: "pulumi-nodejs:dynamic/batchai:Cluster",
  fileServer: "pulumi-nodejs:dynamic/batchai:FileServer",
  residency: "pulumi-nodejs:dynamic/residency:Residency",
} as const;

/** A resource as the analyzer hands it over: its type token, its properties and (in a stack policy) its URN. */
export interface ResourceInput {
  type: string;
  props: Record<string, unknown>;
  urn?: string;
}

/** Reads a value that may be unknown during a preview. */
export function known<T>(read: () => T): Maybe<T> {
  try {
    return read();
  } catch (e) {
    if (e instanceof UnknownValueError) return UNKNOWN;
    throw e;
  }
}

function databaseOf(props: Record<string, unknown>) {
  const ref = {
    subscriptionId: String(props.subscriptionId),
    resourceGroup: String(props.resourceGroup),
    server: String(props.server),
    database: String(props.database),
  };
  return { ref, subject: { id: sqlDatabaseId(ref), resourceGroup: ref.resourceGroup, server: ref.server, database: ref.database } };
}

/** A database's facts from a TDE resource: the status it will have (desired during a preview, live after). */
export function tdeFacts(props: Record<string, unknown>, origin?: string): DatabaseFacts {
  const { subject } = databaseOf(props);
  const live = known(() => props.status as string | undefined);
  if (live !== UNKNOWN && live !== undefined) return { ...subject, liveTdeStatus: live, origin };
  // Before the resource is created or updated (a preview, or Analyze on inputs), judge the status it will have.
  const desired = known(() => props.transparentDataEncryption as string | undefined);
  return { ...subject, liveTdeStatus: desired, tdeStatusSource: "desired", origin };
}

/** A database's tier advice from a ServiceTierAdvisors data source. */
export function advisorFacts(props: Record<string, unknown>, origin?: string): TierAdvisorFacts {
  const { subject } = databaseOf(props);
  const advisor = known(() => {
    const list = props.advisors as Parameters<typeof pickAdvisor>[0] | undefined;
    return list ? pickAdvisor(list) : undefined;
  });
  const intended = known(() => props.serviceObjective as string | undefined);
  // An intended tier not known yet (a preview) cannot be compared: judging the current one instead
  // would flag a database the stack is about to move to the recommended tier.
  return {
    ...subject,
    intendedServiceObjective: intended === UNKNOWN ? undefined : intended,
    advisor: intended === UNKNOWN ? UNKNOWN : advisor,
    origin,
  };
}

/** The usages of one Batch AI Usages data source; UNKNOWN while the list is not known. */
export function usageFacts(props: Record<string, unknown>, origin?: string): UsageFacts[] | typeof UNKNOWN {
  const list = known(() => props.usages as Usage[] | undefined);
  if (list === UNKNOWN) return UNKNOWN;
  return (list ?? []).map((u) => ({ ...usageFact(String(props.subscriptionId), String(props.location), u), origin }));
}

/** An artifact's facts from an ArtifactScan: its verdict as the provider's scan gave it (UNKNOWN while not known). */
export function artifactFacts(props: Record<string, unknown>, origin?: string): ArtifactFacts {
  const verdict = known(() => props.verdict as ArtifactVerdict | undefined);
  const scanned = verdict !== UNKNOWN && verdict !== undefined;
  const text = (k: string) => {
    const v = known(() => props[k]);
    return typeof v === "string" ? v : undefined;
  };
  return {
    path: text("path") ?? "(a path not known yet)",
    sha256: text("sha256") ?? "",
    rulesDigest: text("rulesDigest") ?? "",
    verdict: scanned ? verdict : UNKNOWN,
    matches: scanned ? matchesOf(known(() => props.matches)) : [],
    ...(scanned && text("packer") ? { packer: text("packer") } : {}),
    scannedUnpacked: scanned && known(() => props.scannedUnpacked) === true,
    ...(scanned && text("unpackError") ? { unpackError: text("unpackError") } : {}),
    // The provider fails rather than record an unscanned file; a state that says otherwise is not judged clean.
    ...(verdict === "error" ? { scanError: text("scanError") ?? "the file was not scanned" } : {}),
    origin,
  };
}

/**
 * A probe's facts from a CertificateProbe resource's outputs: its identity and what it kept
 * (outcome, latency, size, sha-256, the issuer's error). Before it has run in this deployment (a
 * preview) the outcome is unknown. Parameters are never read.
 */
export function certificateProbeFacts(props: Record<string, unknown>, origin?: string): ProbeFacts {
  const read = (k: string): unknown => {
    const v = known(() => props[k]);
    return v === UNKNOWN ? undefined : v;
  };
  const outcome = read("outcome");
  const latencyMs = read("latencyMs");
  const size = read("size");
  const sha256 = read("sha256");
  const error = read("error") as { code?: unknown; message?: unknown } | undefined;
  return {
    name: String(read("name")),
    issuer: String(read("issuer")),
    doctype: String(read("doctype")),
    format: String(read("format") ?? "pdf"),
    // Not run yet in this deployment (a preview shows the inputs, without an outcome): unknown, never a pass.
    outcome: outcome === "passed" || outcome === "failed" ? outcome : UNKNOWN,
    ...(typeof latencyMs === "number" ? { latencyMs } : {}),
    ...(typeof size === "number" ? { size } : {}),
    ...(typeof sha256 === "string" ? { sha256 } : {}),
    ...(error && typeof error === "object"
      ? { error: { code: String(error.code ?? "unknown"), message: String(error.message ?? "") } }
      : {}),
    origin,
  };
}

function matchesOf(v: unknown): ArtifactMatchFacts[] {
  return Array.isArray(v) ? (v as ArtifactMatchFacts[]) : [];
}

/** The facts a set of resources gives the rules; resources of other types add nothing. */
export function factsFromResources(resources: readonly ResourceInput[]): ComplianceFacts {
  const facts = emptyFacts("");
  for (const r of resources) {
    if (r.type === TYPES.tde) facts.databases.push(tdeFacts(r.props, r.urn));
    else if (r.type === TYPES.advisors) facts.tierAdvisors.push(advisorFacts(r.props, r.urn));
    else if (r.type === TYPES.artifactScan) facts.artifacts.push(artifactFacts(r.props, r.urn));
    else if (r.type === TYPES.usages) {
      const usages = usageFacts(r.props, r.urn);
      if (usages !== UNKNOWN) facts.usages.push(...usages);
    } else if (r.type === TYPES.probe) facts.probes.push(certificateProbeFacts(r.props, r.urn));
  }
  return facts;
}
