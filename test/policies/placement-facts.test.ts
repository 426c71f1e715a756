import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../src/platform/unknown-value";
import { factsFromResources } from "../../src/domain/facts/gather";
import { residencyFromResources as fromResources } from "../../src/domain/facts/placements";
import type { ResourceInput } from "../../src/domain/facts/fact-kind";
import { newClientSet } from "../../src/clients/client-set";
import { known } from "../../policies/known";
import { TYPES } from "../helpers/carrier-types";
import { seedFromYaml, startTestEmulator } from "../helpers/emulator";

const residencyFromResources = (resources: ResourceInput[]) => fromResources(resources, { known });

/** The pack's residency adapters without a server or a geocoding service: resource outputs → subjects to place. */
const SUB = "00000000-0000-0000-0000-000000000000";
const WS = `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/Microsoft.BatchAI/workspaces/ws-a`;
const wsInputs = { subscriptionId: SUB, resourceGroup: "rg-ml", workspace: "ws-a" };
const residency = {
  type: TYPES.residency,
  urn: "urn:residency",
  props: { allowedCountries: ["us", "NL"], sites: [{ name: "dc", address: "Dam 1" }] },
};

describe("residencyFromResources", () => {
  it("nothing without a Residency resource: the stack sets no residency", () => {
    expect(
      residencyFromResources([{ type: TYPES.workspace, props: { ...wsInputs, workspaceResource: { id: WS, location: "westeurope" } } }]),
    ).toBe(undefined);
  });

  it("databases from the TDE resource's location, Batch AI from the API objects, children where their workspace is, sites from the Residency resource", () => {
    const r = residencyFromResources([
      {
        type: TYPES.tde,
        urn: "urn:tde",
        props: { subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: "orders", status: "Enabled", location: "West Europe" },
      },
      { type: TYPES.tde, urn: "urn:tde2", props: { subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: "old" } },
      { type: TYPES.workspace, urn: "urn:ws", props: { ...wsInputs, workspaceResource: { id: WS, location: "westeurope" } } },
      { type: TYPES.cluster, urn: "urn:c", props: { ...wsInputs, cluster: "c1", clusterResource: { id: `${WS}/clusters/c1` } } },
      {
        type: TYPES.fileServer,
        urn: "urn:f",
        props: { ...wsInputs, fileServer: "nfs", fileServerResource: { id: `${WS}/fileServers/nfs` } },
      },
      residency,
    ])!;
    expect(r.allowedCountries).toEqual(["US", "NL"]);
    expect(r.pending).toEqual([]);
    expect(r.subjects.map((s) => [s.kind, s.label, s.location, s.locationFrom])).toEqual([
      ["sql-database", "s1/orders", "West Europe", "its transparent data encryption configuration"],
      // A resource state without a location output (created before it existed): not placed, with the reason.
      ["sql-database", "s1/old", undefined, "its transparent data encryption configuration"],
      ["batch-workspace", "rg-ml/ws-a", "westeurope", undefined],
      ["batch-cluster", "rg-ml/ws-a/c1", "westeurope", "workspace rg-ml/ws-a"],
      ["batch-file-server", "rg-ml/ws-a/nfs", "westeurope", "workspace rg-ml/ws-a"],
      ["site", "dc", undefined, undefined],
    ]);
    expect(r.origins.get(`${WS}/clusters/c1`.toLowerCase())).toBe("urn:c");
    expect(r.origins.get("site:dc")).toBe("urn:residency");
  });

  it("during a preview: unknown outputs wait, and so do children that would take their workspace's location", () => {
    const r = residencyFromResources([
      {
        type: TYPES.tde,
        urn: "urn:tde",
        props: { subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: "orders", location: UNKNOWN },
      },
      { type: TYPES.workspace, urn: "urn:ws", props: { ...wsInputs, workspaceResource: UNKNOWN } },
      { type: TYPES.cluster, urn: "urn:c", props: { ...wsInputs, cluster: "c1", clusterResource: { id: `${WS}/clusters/c1` } } },
      {
        type: TYPES.cluster,
        urn: "urn:c2",
        props: { ...wsInputs, cluster: "c2", clusterResource: { id: `${WS}/clusters/c2`, location: "eastus" } },
      },
      residency,
    ])!;
    expect(r.pending.map((p) => [p.label, p.country, p.origin])).toEqual([
      ["s1/orders", UNKNOWN, "urn:tde"],
      ["rg-ml/ws-a", UNKNOWN, "urn:ws"],
      ["rg-ml/ws-a/c1", UNKNOWN, "urn:c"],
    ]);
    // A child with a location of its own is placed by it; the site is placed.
    expect(r.subjects.map((s) => s.label)).toEqual(["rg-ml/ws-a/c2", "dc"]);
  });
});

describe("the placements fact kind in the pack", () => {
  it("a placing failure fails only what reads the placements", async () => {
    // A geocoding service that refuses the key.
    const t = await startTestEmulator({ seed: seedFromYaml("geocoding:\n  apiKeys: [{ key: gk-only-this-one }]\n") });
    const env = { STACKWARDEN_GEOCODING_ENDPOINT: `${t.url}/geocoding`, STACKWARDEN_GEOCODING_API_KEY: "gk-another" };
    const ctx = { known, clients: newClientSet(env) };
    try {
      const facts = await factsFromResources(["databases"], [residency], ctx);
      expect(facts.databases).toEqual([]);
      await expect(factsFromResources(["placements"], [residency], ctx)).rejects.toThrow(/GeocodingUnauthorized/);
    } finally {
      await t.close();
    }
    const none = await factsFromResources(["placements"], [], { known, clients: newClientSet({}) });
    expect(none.placements).toEqual([]);
  });
});
