import { describe, expect, it } from "vitest";
import { findRegion, type AzureRegion } from "../../../src/domain/residency/azure-regions";
import { placeStack, type ResidencySources } from "../../../src/domain/residency/place-stack";
import type { StackConfig } from "../../../src/domain/stack/stack-config";
import type { AddressResultsDto } from "../../../src/services/geocoding/types";
import type { TransparentDataEncryption } from "../../../src/services/sql/types";

/**
 * Placing a stack starts each region's reverse geocoding with the first read that names the
 * region, while the other reads are still out: the orchestration, over sources held in memory
 * whose answers the test releases one by one.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const stack = (n: number) =>
  ({
    subscriptionId: SUB,
    databases: Array.from({ length: n }, (_, i) => ({ resourceGroup: "rg", server: "sql-1", database: `db-${i}` })),
    batch: { locations: [], workspaces: [] },
  }) as unknown as StackConfig;

/** TDE reads that wait until released, each answering the location given for its database. */
function heldReads(locations: string[]) {
  const waiting: (() => void)[] = [];
  const sql: ResidencySources["sql"] = {
    getTransparentDataEncryption: (ref) =>
      new Promise<TransparentDataEncryption>((resolve) => {
        const i = Number(ref.database.slice(3));
        waiting[i] = () => resolve({ id: `${ref.database}/tde`, location: locations[i] } as TransparentDataEncryption);
      }),
  };
  return { sql, release: (i: number) => waiting[i]() };
}

const noBatch = {
  listWorkspaces: async () => [],
  listWorkspacesByResourceGroup: async () => [],
  listClusters: async () => [],
  listFileServers: async () => [],
} as unknown as ResidencySources["batch"];

const settle = () => new Promise((r) => setImmediate(r));

describe("region lookups under the reads", () => {
  it("reverse-geocodes a region once, as soon as the first read names it, before the last read is answered", async () => {
    const held = heldReads(["West Europe", "westeurope", "East US"]);
    const asked: string[] = [];
    const geocoding = {
      reverseGeocode: async (q: { lat: number; lng: number }) => {
        asked.push(`${q.lat},${q.lng}`);
        return { result: [{ countrycode: "NL", city: "Amsterdam" }] } as AddressResultsDto;
      },
      geocode: async () => ({}) as AddressResultsDto,
    };
    const placing = placeStack({ sql: held.sql, batch: noBatch, geocoding }, stack(3), { concurrency: 3 });
    await settle();
    expect(asked).toEqual([]);
    held.release(0);
    await settle();
    const westeurope = findRegion("westeurope")!;
    expect(asked).toEqual([`${westeurope.latitude},${westeurope.longitude}`]);
    held.release(1);
    await settle();
    expect(asked).toHaveLength(1);
    held.release(2);
    const placed = await placing;
    expect(asked).toHaveLength(2);
    expect(placed.map((p) => [p.region, p.country])).toEqual([
      ["westeurope", "NL"],
      ["westeurope", "NL"],
      ["eastus", "NL"],
    ]);
  });

  it("a lookup that fails early fails the placing when its answer is needed, and is never an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      const held = heldReads(["westeurope", "westeurope"]);
      const geocoding = {
        reverseGeocode: async () => {
          throw new Error("geocoding refused the key");
        },
        geocode: async () => ({}) as AddressResultsDto,
      };
      const placing = placeStack({ sql: held.sql, batch: noBatch, geocoding }, stack(2), { concurrency: 2 });
      placing.catch(() => undefined);
      held.release(0);
      await settle();
      await settle();
      held.release(1);
      await expect(placing).rejects.toThrow("geocoding refused the key");
      await settle();
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("findRegion over a list of its own", () => {
  it("the first region of a name or display name wins, as a search in list order finds it", () => {
    const regions: AzureRegion[] = [
      { name: "alpha", displayName: "Shared Name", latitude: 1, longitude: 1 },
      { name: "sharedname", displayName: "Beta", latitude: 2, longitude: 2 },
    ];
    expect(findRegion("shared-name", regions)?.name).toBe("alpha");
    expect(findRegion("BETA", regions)?.name).toBe("sharedname");
    expect(findRegion("", regions)).toBeUndefined();
  });
});
