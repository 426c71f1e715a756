import { batchWorkspaceId, childId, sqlDatabaseId } from "../src/platform/arm/resource-id";
import { UNKNOWN, type ComplianceFacts, type PlacementFacts, type PlacementKind } from "../src/domain/compliance/facts";
import { placementFacts } from "../src/domain/facts/placement-facts";
import { placeWithGeocoding } from "../src/domain/residency/place-stack";
import type { Placement } from "../src/domain/residency/placement";
import { batchSubjects, siteSubjects, type ResidencySubject } from "../src/domain/residency/residency-subjects";
import { geocodingClientFromEnv } from "../src/clients/geocoding-client";
import type { Cluster, FileServer, Workspace } from "../src/services/batchai/types";
import { TYPES, known, type ResourceInput } from "./resource-facts";

/**
 * The data-residency facts of the policy pack. Locations come from the resources' outputs, as
 * `check` reads them from the APIs: a database's from its TransparentDataEncryption resource
 * (`location`, the TDE configuration's), a Batch AI workspace's, cluster's or file server's from
 * its data source (the API object; clusters and file servers are where their workspace is). The
 * allowed countries and the sites come from the stack's Residency resource; without one the stack
 * sets no residency and there is nothing to judge. Placing then goes through the same engine as
 * `check` (`placeWithGeocoding`: region coordinates, reverse geocoding, address geocoding), with
 * the geocoding client of the analyzer's environment (`STACKWARDEN_GEOCODING_ENDPOINT`, `_API_KEY`),
 * so both give the same verdicts.
 */

/** What the stack's resources say of residency, before any geocoding. */
export interface ResidencyFromResources {
  allowedCountries: string[];
  /** Located resources and sites to place. */
  subjects: ResidencySubject[];
  /** Resources whose location is not known yet (a preview): judged `unknown`. */
  pending: PlacementFacts[];
  /** The URN each subject's finding is reported on, by lower-cased subject id. */
  origins: Map<string, string>;
}

const NOT_YET = "its location is not known until the resource is created or updated";

/** Reads residency from resource outputs; undefined when the stack has no Residency resource (no `stackwarden:residency`). */
export function residencyFromResources(resources: readonly ResourceInput[]): ResidencyFromResources | undefined {
  const carrier = resources.find((r) => r.type === TYPES.residency);
  if (!carrier) return undefined;
  const allowed = known(() => carrier.props.allowedCountries as unknown);
  const sites = known(() => carrier.props.sites as unknown);
  const allowedCountries = Array.isArray(allowed) ? allowed.map((c) => String(c).toUpperCase()) : [];
  const origins = new Map<string, string>();
  const pending: PlacementFacts[] = [];
  const subjects: ResidencySubject[] = [];
  const wait = (kind: PlacementKind, id: string, label: string, origin?: string) =>
    pending.push({ kind, id, label, country: UNKNOWN, reason: NOT_YET, allowedCountries, origin });
  const note = (id: string, urn: string | undefined) => {
    if (urn) origins.set(id.toLowerCase(), urn);
  };

  const inventory = { workspaces: [] as Workspace[], clusters: [] as Cluster[], fileServers: [] as FileServer[] };
  const waitingWorkspaces = new Set<string>();
  const children: { kind: PlacementKind; resource: ResourceInput; output: string; segment: string; input: string }[] = [];
  for (const r of resources) {
    const p = r.props;
    if (r.type === TYPES.tde) {
      const ref = {
        subscriptionId: String(p.subscriptionId),
        resourceGroup: String(p.resourceGroup),
        server: String(p.server),
        database: String(p.database),
      };
      const id = sqlDatabaseId(ref);
      const label = `${ref.server}/${ref.database}`;
      const location = known(() => p.location as unknown);
      if (location === UNKNOWN) wait("sql-database", id, label, r.urn);
      else {
        subjects.push({
          kind: "sql-database",
          id,
          label,
          location: nonEmpty(location),
          locationFrom: "its transparent data encryption configuration",
        });
        note(id, r.urn);
      }
    } else if (r.type === TYPES.workspace) {
      const ws = known(() => p.workspaceResource as Workspace | undefined);
      const id = batchWorkspaceId(workspaceRef(p));
      if (ws === UNKNOWN) {
        waitingWorkspaces.add(id.toLowerCase());
        wait("batch-workspace", id, `${String(p.resourceGroup)}/${String(p.workspace)}`, r.urn);
      } else if (ws?.id) {
        inventory.workspaces.push(ws);
        note(ws.id, r.urn);
      }
    } else if (r.type === TYPES.cluster) {
      children.push({ kind: "batch-cluster", resource: r, output: "clusterResource", segment: "clusters", input: "cluster" });
    } else if (r.type === TYPES.fileServer) {
      children.push({ kind: "batch-file-server", resource: r, output: "fileServerResource", segment: "fileServers", input: "fileServer" });
    }
  }
  for (const c of children) {
    const p = c.resource.props;
    const workspaceId = batchWorkspaceId(workspaceRef(p));
    const item = known(() => p[c.output] as (Cluster & FileServer) | undefined);
    const id = childId(workspaceId, c.segment, String(p[c.input]));
    // A child without a location of its own is where its workspace is: not known while the workspace is not.
    const waits = item === UNKNOWN || (!!item?.id && !nonEmpty(item.location) && waitingWorkspaces.has(workspaceId.toLowerCase()));
    if (waits) wait(c.kind, id, `${String(p.resourceGroup)}/${String(p.workspace)}/${String(p[c.input])}`, c.resource.urn);
    else if (item?.id) {
      (c.kind === "batch-cluster" ? inventory.clusters : inventory.fileServers).push(item);
      note(item.id, c.resource.urn);
    }
  }
  subjects.push(...batchSubjects({ workspaces: [], source: undefined }, inventory));

  if (sites === UNKNOWN || allowed === UNKNOWN) {
    // Only during a preview of a changed residency section: its sites cannot be placed yet.
    for (const s of subjects) wait(s.kind, s.id, s.label, origins.get(s.id.toLowerCase()));
    return { allowedCountries, subjects: [], pending, origins };
  }
  const siteList = Array.isArray(sites) ? (sites as { name: string; address: string }[]) : [];
  for (const s of siteSubjects({ allowedCountries, sites: siteList })) {
    subjects.push(s);
    note(s.id, carrier.urn);
  }
  return { allowedCountries, subjects, pending, origins };
}

/**
 * The placements the data-residency policy judges: none without a Residency resource; else every
 * located resource and site, placed through the geocoding service of `env`, plus the ones whose
 * location is not known yet. A geocoding failure is thrown (the analyzer reports it; the engine
 * stops, as `check` exits 1).
 */
export async function placementsFromResources(
  resources: readonly ResourceInput[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<PlacementFacts[]> {
  const r = residencyFromResources(resources);
  if (!r) return [];
  const placed = r.subjects.length ? await placeOnce(r.subjects, env) : [];
  return [...placed.map((p) => placementFacts(p, r.allowedCountries, r.origins.get(p.id.toLowerCase()))), ...r.pending];
}

/**
 * The facts with their placements. Placing can fail (the geocoding service refuses the key, or is
 * down): then reading `placements` throws that error, so it fails the data-residency policy, the
 * one rule that reads them, and not every other policy of the pack.
 */
export async function withPlacements(
  facts: ComplianceFacts,
  resources: readonly ResourceInput[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ComplianceFacts> {
  const placed = await placementsFromResources(resources, env).then(
    (list) => ({ list }),
    (error: unknown) => ({ error }),
  );
  return Object.defineProperty({ ...facts }, "placements", {
    enumerable: true,
    get: () => {
      if ("error" in placed) throw placed.error;
      return placed.list;
    },
  });
}

/**
 * CrossGuard runs each stack policy with its own copy of the resources, and the pack cannot tell
 * which policies read placements: so the placing of one set of subjects is shared for a short
 * while, and the stack is geocoded once per analysis rather than once per policy.
 */
let last: { key: string; at: number; placing: Promise<Placement[]> } | undefined;
const SHARE_MS = 60_000;

function placeOnce(subjects: ResidencySubject[], env: NodeJS.ProcessEnv): Promise<Placement[]> {
  const key = JSON.stringify([env.STACKWARDEN_GEOCODING_ENDPOINT ?? "", env.STACKWARDEN_GEOCODING_API_KEY ?? "", subjects]);
  const now = Date.now();
  if (last && last.key === key && now - last.at < SHARE_MS) return last.placing;
  const placing = placeWithGeocoding(geocodingClientFromEnv(env), subjects);
  const entry = { key, at: now, placing };
  last = entry;
  // A failure is not shared: the next analysis asks again.
  placing.catch(() => {
    if (last === entry) last = undefined;
  });
  return placing;
}

function workspaceRef(p: Record<string, unknown>) {
  return { subscriptionId: String(p.subscriptionId), resourceGroup: String(p.resourceGroup), workspace: String(p.workspace) };
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v : undefined;
}
