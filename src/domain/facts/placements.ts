import { batchWorkspaceId, childId, sqlDatabaseId, tdeConfigurationId } from "../../platform/arm/resource-id";
import { requireGeocodingService } from "../../platform/settings/endpoints";
import type { Cluster, FileServer, Workspace } from "../../services/batchai/types";
import { placeStack, placeWithGeocoding, type ResidencySources } from "../residency/place-stack";
import type { StackConfig } from "../stack/stack-config";
import type { Placement } from "../residency/placement";
import { batchSubjects, keyVaultSubjects, siteSubjects, type ResidencyKind, type ResidencySubject } from "../residency/residency-subjects";
import { batchCluster, batchFileServer, batchWorkspace } from "./batch-objects";
import { carrierOf } from "./carrier";
import { keyVaultOfProtector } from "./key-vaults";
import { UNKNOWN, type Maybe } from "../../platform/unknown-value";
import type { FactOrigin } from "./model/compliance-facts";
import { defineFactKind, type ResourceContext, type ResourceInput } from "./fact-kind";
import { readDatabase, readTdeOnce, tdeConfiguration, type UnreadReporting } from "./tde-status";
import type { FactReads } from "./fact-reads";
import { workspaceParamsOf } from "./read-params";

/** What the data-residency rule places in a country. */
export type PlacementKind = ResidencyKind;

/**
 * Where one located resource or named site is, judged against the countries the stack allows.
 * Gathered only when the stack has `stackwarden:residency`: no residency section, no placements.
 */
export interface PlacementFacts extends FactOrigin {
  /** The resource's ARM id; `site:<name>` for a site. */
  id: string;
  /** A short name for tables and messages: `sql-prod-1/orders`, `rg-ml/ws-vision/gpu-nc6`, the site's name. */
  label: string;
  kind: PlacementKind;
  /** The canonical Azure region (`westeurope`), when the location names a known one. */
  region?: string;
  /** The location exactly as the API returned it (`West Europe`). */
  location?: string;
  /** The site's address. */
  address?: string;
  /** The region's point, or the address's geocoded position. */
  coordinates?: { lat: number; lng: number };
  /**
   * ISO 3166-1 alpha-2, upper case. Undefined when it could not be placed (an unknown region, a
   * point in no country, an address that could not be geocoded: `reason` says which); UNKNOWN
   * while its location is not known yet (a Pulumi preview).
   */
  country: Maybe<string | undefined>;
  /** Why it could not be placed; for a placed one, how it was (region and nearest place, geocoding level). */
  reason: string;
  /** The countries the stack allows (`stackwarden:residency.allowedCountries`), ISO alpha-2. */
  allowedCountries: string[];
}

declare module "./model/compliance-facts" {
  interface FactMap {
    placements: PlacementFacts;
  }
}

/**
 * The stack's residency section (allowed countries, sites) as a resource (`Residency`,
 * providers/residency-provider.ts, which calls no API): the pack sees resources, never the config.
 */
export const residencySection = carrierOf("residency:Residency");

/** How long the pack shares the placing of one set of subjects (CrossGuard runs each stack policy on its own copy). */
const SHARE_PLACING_MS = 60_000;

/**
 * Where the stack's located resources and sites are, judged against the countries it allows:
 * none when the stack has no `stackwarden:residency` (the rule is then off), else every located
 * resource and site of the stack placed through the residency engine (`placeStack`), each
 * database's TDE configuration read once with the TDE status. Where resources are does not change
 * with a plan. API failures are thrown.
 */
export const placements = defineFactKind<PlacementFacts>({
  key: "placements",
  title: "the country of each located resource and site",
  scope: "place",
  carrier: residencySection,
  prepare: async (ctx) => {
    const r = ctx.stack.residency;
    if (r) requireGeocodingService(ctx.clients.env, `stackwarden:residency${r.source ? ` (${r.source.file}:${r.source.line})` : ""}`);
  },
  gather: async (ctx) => {
    const residency = ctx.stack.residency;
    if (!residency) return [];
    // The located resources other kinds gather (the vaults of the TDE protectors), read once with them (shared through ctx.once).
    const vaults = await ctx.located();
    const reads = ctx.clients.reads;
    const placed = await placeStackTolerantly(
      { sql: { getTransparentDataEncryption: (ref) => readTdeOnce(ctx, ref) }, batch: batchReads(reads), geocoding: ctx.clients.geocoding },
      ctx.stack,
      { concurrency: ctx.concurrency, signal: ctx.signal, unread: ctx.unread, failureOf: (e) => reads.failureOf(e), also: vaults },
    );
    // A resource the stack names nowhere (a Batch AI workspace found by discovery) is reported at the
    // residency section, which is what makes it a finding.
    return placed.map((p) => ({
      ...placementFactsOf({ ...p, source: p.source ?? residency.source }, residency.allowedCountries),
      ...(p.unread ? { unread: p.unread } : {}),
    }));
  },
  fromResources: async (resources, ctx) => {
    const r = residencyFromResources(resources, ctx);
    if (!r) return [];
    const subjects = r.subjects;
    // The stack is geocoded once per analysis rather than once per policy reading placements.
    const placed = subjects.length
      ? await ctx.clients.remember(`placements:${JSON.stringify(subjects)}`, SHARE_PLACING_MS, () =>
          placeWithGeocoding(ctx.clients.geocoding, subjects),
        )
      : [];
    return [...placed.map((p) => placementFactsOf(p, r.allowedCountries, r.origins.get(p.id.toLowerCase()))), ...r.pending];
  },
});

/** The Batch AI lists placing reads (the workspaces to place, their clusters and file servers), through the read port. */
function batchReads(reads: FactReads): ResidencySources["batch"] {
  return {
    listWorkspaces: async (subscriptionId, signal) => (await reads.read("Workspaces_List", { subscriptionId }, signal)).value,
    listWorkspacesByResourceGroup: async (subscriptionId, resourceGroupName, signal) =>
      (await reads.read("Workspaces_ListByResourceGroup", { subscriptionId, resourceGroupName }, signal)).value,
    listClusters: async (ref, signal) => (await reads.read("Clusters_ListByWorkspace", workspaceParamsOf(ref), signal)).value,
    listFileServers: async (ref, signal) => (await reads.read("FileServers_ListByWorkspace", workspaceParamsOf(ref), signal)).value,
  };
}

/**
 * Places the stack as `placeStack` does, but a database the cloud answers an error for (a 404: it
 * has no such database) is reported through `unread` and placed nowhere, with that reason
 * (`unread`), while the others are placed. Other failures are thrown.
 */
export async function placeStackTolerantly(
  sources: ResidencySources,
  stack: StackConfig,
  opts: UnreadReporting & { concurrency?: number; signal?: AbortSignal; also?: readonly ResidencySubject[] },
): Promise<(Placement & { unread?: string })[]> {
  const unread = new Map<string, string>();
  // Each read asks for its stack entry (for the line an unread database is reported at): one
  // lookup in a map, not a scan of every entry per read (quadratic: 13 s of CPU at 10 000 databases).
  const entries = entriesByDatabase(stack.databases);
  const sql: ResidencySources["sql"] = {
    getTransparentDataEncryption: async (ref, signal) => {
      const entry = entries.get(databaseKey(ref));
      const tde = await readDatabase(opts, ref, entry?.source, () => sources.sql.getTransparentDataEncryption(ref, signal));
      if (!("unread" in tde)) return tde;
      unread.set(sqlDatabaseId(ref).toLowerCase(), tde.unread);
      return { id: tdeConfigurationId(ref) };
    },
  };
  const placed = await placeStack({ ...sources, sql }, stack, opts);
  return placed.map((p) => {
    const why = unread.get(p.id.toLowerCase());
    return why ? { ...p, status: "not-applicable" as const, reason: `it could not be read: ${why}`, unread: why } : p;
  });
}

/**
 * A database's key in `entriesByDatabase`: its resource group, server and name, compared caselessly
 * as ARM does, each apart (JSON, so that no name with a separator in it can match another triple).
 */
function databaseKey(d: { resourceGroup: string; server: string; database: string }): string {
  return JSON.stringify([d.resourceGroup.toLowerCase(), d.server.toLowerCase(), d.database.toLowerCase()]);
}

/** The stack's database entries by `databaseKey`; of two entries naming one database, the first (as a search in order finds). */
function entriesByDatabase<T extends { resourceGroup: string; server: string; database: string }>(databases: readonly T[]): Map<string, T> {
  const out = new Map<string, T>();
  for (const d of databases) {
    const key = databaseKey(d);
    if (!out.has(key)) out.set(key, d);
  }
  return out;
}

/** A placement in the data-residency rule's terms: its country (none when it could not be placed) beside the allowed ones. */
export function placementFactsOf(p: Placement, allowedCountries: readonly string[], origin?: string): PlacementFacts {
  return {
    id: p.id,
    label: p.label,
    kind: p.kind,
    region: p.region,
    location: p.location,
    address: p.address,
    coordinates: p.coordinates,
    country: p.status === "placed" ? p.country : undefined,
    reason: p.reason,
    allowedCountries: [...allowedCountries],
    source: p.source,
    origin,
  };
}

/**
 * The data-residency facts of the policy pack. Locations come from the resources' outputs, as
 * `check` reads them from the APIs: a database's from its TransparentDataEncryption resource
 * (`location`, the TDE configuration's), a Batch AI workspace's, cluster's or file server's from
 * its data source (the API object; clusters and file servers are where their workspace is). The
 * allowed countries and the sites come from the stack's Residency resource; without one the stack
 * sets no residency and there is nothing to judge.
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
export function residencyFromResources(
  resources: readonly ResourceInput[],
  { known }: Pick<ResourceContext, "known">,
): ResidencyFromResources | undefined {
  const carrier = resources.find((r) => r.type === residencySection.type);
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
    if (r.type === tdeConfiguration.type) {
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
    } else if (r.type === batchWorkspace.type) {
      const ws = known(() => p.workspaceResource as Workspace | undefined);
      const id = batchWorkspaceId(workspaceRef(p));
      if (ws === UNKNOWN) {
        waitingWorkspaces.add(id.toLowerCase());
        wait("batch-workspace", id, `${String(p.resourceGroup)}/${String(p.workspace)}`, r.urn);
      } else if (ws?.id) {
        inventory.workspaces.push(ws);
        note(ws.id, r.urn);
      }
    } else if (r.type === keyVaultOfProtector.type) {
      const vault = known(() => p.vaultResource as { id?: string; name?: string; location?: string } | undefined);
      const name = String(p.vault);
      if (vault === UNKNOWN) wait("key-vault", `keyvault:${name}`, name, r.urn);
      else if (vault?.id) {
        const rg = known(() => p.resourceGroup as unknown);
        subjects.push(
          ...keyVaultSubjects([{ id: vault.id, name, resourceGroup: typeof rg === "string" ? rg : undefined, location: vault.location }]),
        );
        note(vault.id, r.urn);
      }
    } else if (r.type === batchCluster.type) {
      children.push({ kind: "batch-cluster", resource: r, output: "clusterResource", segment: "clusters", input: "cluster" });
    } else if (r.type === batchFileServer.type) {
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

function workspaceRef(p: Record<string, unknown>) {
  return { subscriptionId: String(p.subscriptionId), resourceGroup: String(p.resourceGroup), workspace: String(p.workspace) };
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v : undefined;
}
