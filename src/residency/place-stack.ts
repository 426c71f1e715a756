import { mapBounded } from "../concurrency/bounded-map";
import type { StackConfig } from "../config/stack-config";
import { collectBatchInventory } from "../inventory/batch-inventory";
import type { BatchAiClient } from "../services/batchai/client";
import type { GeocodingClient } from "../services/geocoding/client";
import type { SqlClient } from "../services/sql/client";
import { azureRegions } from "./azure-regions";
import { addressAnswerOf, pointAnswerOf } from "./geo-answers";
import { placeSubjects, placementNeeds, type GeoAnswer, type Placement } from "./placement";
import { batchSubjects, siteSubjects, sqlSubjects, type ResidencySubject } from "./residency-subjects";

/** The clients placing reads through. */
export interface ResidencySources {
  sql: Pick<SqlClient, "getTransparentDataEncryption">;
  batch: BatchAiClient;
  geocoding: Pick<GeocodingClient, "reverseGeocode" | "geocode">;
}

/**
 * Places every located resource of a stack and every site it names: each database by its TDE
 * configuration's location, each Batch AI workspace, cluster and file server (through the Batch
 * inventory), each region's point by reverse geocoding (once per region), each site by geocoding
 * its address (once per address). API failures are thrown (the caller's error, exit 1); what
 * cannot be placed is returned as not-applicable with its reason.
 */
export async function placeStack(
  sources: ResidencySources,
  stack: StackConfig,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<Placement[]> {
  const limit = opts.concurrency ?? 8;
  const signal = opts.signal;
  const [tdes, batch] = await Promise.all([
    mapBounded(stack.databases, limit, (d) =>
      sources.sql.getTransparentDataEncryption(
        { subscriptionId: stack.subscriptionId, resourceGroup: d.resourceGroup, server: d.server, database: d.database },
        signal,
      ),
    ),
    collectBatchInventory(
      sources.batch,
      { subscriptionId: stack.subscriptionId, resourceGroups: stack.batch.resourceGroups, locations: [] },
      { concurrency: limit, signal },
    ),
  ]);
  const subjects = [
    ...sqlSubjects(stack.subscriptionId, stack.databases, tdes),
    ...batchSubjects(stack.batch, batch),
    ...siteSubjects(stack.residency),
  ];
  return placeWithGeocoding(sources.geocoding, subjects, { concurrency: limit, signal });
}

/**
 * Places subjects however they were gathered (from the CLI's reads, or from Pulumi resource
 * outputs in the policy pack): reverse-geocodes each distinct region's point once and geocodes
 * each distinct site address once, then places them (see `placeSubjects`).
 */
export async function placeWithGeocoding(
  geocoding: Pick<GeocodingClient, "reverseGeocode" | "geocode">,
  subjects: readonly ResidencySubject[],
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<Placement[]> {
  const limit = opts.concurrency ?? 8;
  const signal = opts.signal;
  const regions = azureRegions();
  const needs = placementNeeds(subjects, regions);
  const regionAnswers = new Map<string, GeoAnswer>();
  const addressAnswers = new Map<string, GeoAnswer>();
  await Promise.all([
    mapBounded(needs.regions, limit, async (r) => {
      const point = { lat: r.latitude, lng: r.longitude };
      regionAnswers.set(r.name, pointAnswerOf(await geocoding.reverseGeocode({ ...point, from: 1, to: 1 }, signal), point));
    }),
    mapBounded(needs.addresses, limit, async (address) => {
      addressAnswers.set(address, addressAnswerOf(await geocoding.geocode({ address, from: 1, to: 1 }, signal)));
    }),
  ]);
  return placeSubjects(subjects, { regions: regionAnswers, addresses: addressAnswers }, regions);
}
