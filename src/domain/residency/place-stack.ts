import { workspaceRefOf, type DatabaseRef, type WorkspaceRef } from "../../platform/arm/resource-id";
import { databaseSubscription } from "../stack/stack-config";
import { mapBounded } from "../../platform/bounded-map";
import type { StackConfig } from "../stack/stack-config";
import type { Cluster, FileServer, Workspace } from "../../services/batchai/types";
import type { TransparentDataEncryption } from "../../services/sql/types";
import { azureRegions, findRegion } from "./azure-regions";
import { addressAnswerOf } from "./geo-answers";
import type { Geocoder } from "./geocoder";
import { RegionLookups } from "./region-lookups";
import { placeSubjects, placementNeeds, type GeoAnswer, type Placement } from "./placement";
import { batchSubjects, siteSubjects, sqlSubjects, type ResidencySubject } from "./residency-subjects";

/** What placing reads through: the SQL, Batch AI and geocoding clients satisfy it (the domain names no client class). */
export interface ResidencySources {
  sql: { getTransparentDataEncryption(db: DatabaseRef, signal?: AbortSignal): Promise<TransparentDataEncryption> };
  batch: {
    listWorkspaces(subscriptionId: string, signal?: AbortSignal): Promise<Workspace[]>;
    listWorkspacesByResourceGroup(subscriptionId: string, resourceGroup: string, signal?: AbortSignal): Promise<Workspace[]>;
    listClusters(ref: WorkspaceRef, signal?: AbortSignal): Promise<Cluster[]>;
    listFileServers(ref: WorkspaceRef, signal?: AbortSignal): Promise<FileServer[]>;
  };
  geocoding: Geocoder;
}

/**
 * Places every located resource of a stack (and the subjects in `also`) and every site it names: each database by its TDE
 * configuration's location, each Batch AI workspace, cluster and file server (see `readLocatedBatch`),
 * each region's point by reverse geocoding (once per region), each site by geocoding
 * its address (once per address). API failures are thrown (the caller's error, exit 1); what
 * cannot be placed is returned as not-applicable with its reason.
 */
export async function placeStack(
  sources: ResidencySources,
  stack: StackConfig,
  opts: { concurrency?: number; signal?: AbortSignal; also?: readonly ResidencySubject[] } = {},
): Promise<Placement[]> {
  const limit = opts.concurrency ?? 8;
  const signal = opts.signal;
  const regions = azureRegions();
  const lookups = new RegionLookups(sources.geocoding, signal);
  const [tdes, batch] = await Promise.all([
    mapBounded(stack.databases, limit, async (d) => {
      const tde = await sources.sql.getTransparentDataEncryption(
        { subscriptionId: databaseSubscription(stack, d), resourceGroup: d.resourceGroup, server: d.server, database: d.database },
        signal,
      );
      // The region's lookup goes out with the first read that names it, under the reads still to come.
      const region = tde?.location ? findRegion(tde.location, regions) : undefined;
      if (region) lookups.start(region);
      return tde;
    }),
    readLocatedBatch(sources.batch, stack.subscriptionId, stack.batch.resourceGroups, { concurrency: limit, signal }),
  ]);
  const subjects = [
    ...sqlSubjects(stack.subscriptionId, stack.databases, tdes),
    ...batchSubjects(stack.batch, batch),
    // Subjects the caller read itself (the Key Vaults of the TDE protectors), before the sites.
    ...(opts.also ?? []),
    ...siteSubjects(stack.residency),
  ];
  return placeWithGeocoding(sources.geocoding, subjects, { concurrency: limit, signal, lookups });
}

/**
 * Places subjects however they were gathered (from the CLI's reads, or from Pulumi resource
 * outputs in the policy pack): reverse-geocodes each distinct region's point once and geocodes
 * each distinct site address once, then places them (see `placeSubjects`).
 */
export async function placeWithGeocoding(
  geocoding: Geocoder,
  subjects: readonly ResidencySubject[],
  opts: { concurrency?: number; signal?: AbortSignal; lookups?: RegionLookups } = {},
): Promise<Placement[]> {
  const limit = opts.concurrency ?? 8;
  const signal = opts.signal;
  const regions = azureRegions();
  const lookups = opts.lookups ?? new RegionLookups(geocoding, signal);
  const needs = placementNeeds(subjects, regions);
  const regionAnswers = new Map<string, GeoAnswer>();
  const addressAnswers = new Map<string, GeoAnswer>();
  await Promise.all([
    mapBounded(needs.regions, limit, async (r) => {
      regionAnswers.set(r.name, await lookups.answer(r));
    }),
    mapBounded(needs.addresses, limit, async (address) => {
      addressAnswers.set(address, addressAnswerOf(await geocoding.geocode({ address, from: 1, to: 1 }, signal)));
    }),
  ]);
  return placeSubjects(subjects, { regions: regionAnswers, addresses: addressAnswers }, regions);
}

/**
 * The Batch AI resources that have a place: the workspaces (of the listed resource groups, or of
 * the subscription), and each workspace's clusters and file servers, every list to its last page,
 * sorted by id. Experiments and jobs live in their workspace and are not read.
 */
export async function readLocatedBatch(
  batch: ResidencySources["batch"],
  subscriptionId: string,
  resourceGroups: readonly string[] | undefined,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<{ workspaces: Workspace[]; clusters: Cluster[]; fileServers: FileServer[] }> {
  const limit = opts.concurrency ?? 8;
  const signal = opts.signal;
  const lists = resourceGroups
    ? await mapBounded(uniqueCaseless(resourceGroups), limit, (rg) => batch.listWorkspacesByResourceGroup(subscriptionId, rg, signal))
    : [await batch.listWorkspaces(subscriptionId, signal)];
  const workspaces = byId(lists.flat());
  const reads = workspaces.flatMap((w) => {
    const ref = w.id ? workspaceRefOf(w.id) : undefined;
    return ref
      ? [
          { ref, kind: "clusters" as const },
          { ref, kind: "fileServers" as const },
        ]
      : [];
  });
  const children = await mapBounded(reads, limit, ({ ref, kind }) =>
    kind === "clusters" ? batch.listClusters(ref, signal) : batch.listFileServers(ref, signal),
  );
  return {
    workspaces,
    clusters: byId(children.filter((_, i) => reads[i].kind === "clusters").flat()),
    fileServers: byId(children.filter((_, i) => reads[i].kind === "fileServers").flat()),
  };
}

/** Distinct by id (case-insensitively: a list that shifts while paged may repeat one), sorted by id. */
function byId<T extends { id?: string }>(items: readonly T[]): T[] {
  const seen = new Map<string, T>();
  for (const it of items) if (it.id && !seen.has(it.id.toLowerCase())) seen.set(it.id.toLowerCase(), it);
  return [...seen.values()].sort((a, b) =>
    a.id!.toLowerCase() < b.id!.toLowerCase() ? -1 : a.id!.toLowerCase() > b.id!.toLowerCase() ? 1 : 0,
  );
}

function uniqueCaseless(values: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const v of values) if (!seen.has(v.toLowerCase())) seen.set(v.toLowerCase(), v);
  return [...seen.values()];
}
