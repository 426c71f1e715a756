import { describe, expect, it } from "vitest";
import { azureRegions, findRegion, parseRegions } from "../../../src/domain/residency/azure-regions";
import { addressAnswerOf, pointAnswerOf } from "../../../src/domain/residency/geo-answers";
import { placeSubjects, placementNeeds, type GeoAnswer } from "../../../src/domain/residency/placement";
import { batchSubjects, siteSubjects, sqlSubjects, type ResidencySubject } from "../../../src/domain/residency/residency-subjects";

const SUB = "00000000-0000-0000-0000-000000000000";
const WS = (rg: string, ws: string) => `/subscriptions/${SUB}/resourceGroups/${rg}/providers/Microsoft.BatchAI/workspaces/${ws}`;
const src = (line: number) => ({ file: "stacks/Pulumi.t.yaml", line, column: 7 });

describe("Azure regions", () => {
  it("ships the 40 regions with coordinates", () => {
    const regions = azureRegions();
    expect(regions).toHaveLength(40);
    expect(new Set(regions.map((r) => r.name)).size).toBe(40);
  });

  it("finds a region by name or display name, whatever the case and spacing", () => {
    for (const written of ["westeurope", "West Europe", "WEST EUROPE", "west-europe", " West  Europe ", "WestEurope"]) {
      expect(findRegion(written)?.name, written).toBe("westeurope");
    }
    expect(findRegion("East US 2")?.name).toBe("eastus2");
    expect(findRegion("eastus2")?.latitude).toBe(36.6681);
    expect(findRegion("Australia Central 2")?.name).toBe("australiacentral2");
  });

  it("knows no region by a name the list does not hold", () => {
    expect(findRegion("moon-base-1")).toBeUndefined();
    expect(findRegion("")).toBeUndefined();
    expect(findRegion("westeurope2")).toBeUndefined();
  });

  it("refuses a malformed region list with the entry's position", () => {
    expect(() => parseRegions('[{"name":"x","displayName":"X","latitude":95,"longitude":0}]', "r.json")).toThrow(/r\.json: region \[0\]/);
    expect(() => parseRegions("{}", "r.json")).toThrow(/expected a JSON array/);
  });
});

describe("what is placed", () => {
  it("places databases by their TDE configuration's location, keeping the stack line", () => {
    const dbs = [
      { resourceGroup: "rg", server: "s1", database: "a", transparentDataEncryption: "Enabled" as const, source: src(5) },
      { resourceGroup: "rg", server: "s1", database: "b", transparentDataEncryption: "Enabled" as const, source: src(9) },
    ];
    const subjects = sqlSubjects(SUB, dbs, [
      { id: "x", location: "West Europe" },
      { id: "y", location: null as unknown as string },
    ]);
    expect(subjects[0]).toMatchObject({
      kind: "sql-database",
      label: "s1/a",
      location: "West Europe",
      id: `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/a`,
      source: src(5),
    });
    expect(subjects[1].location).toBeUndefined();
  });

  it("places clusters and file servers where their workspace is, and points at the workspace's stack entry", () => {
    const subjects = batchSubjects(
      { workspaces: [{ resourceGroup: "RG-ML", workspace: "ws-a", source: src(30) }], source: src(25) },
      {
        workspaces: [
          { id: WS("rg-ml", "ws-a"), location: "westeurope" },
          { id: WS("rg-ml", "ws-b"), location: "eastus" },
        ],
        clusters: [
          { id: `${WS("rg-ml", "ws-a")}/clusters/c1` },
          { id: `${WS("rg-ml", "ws-b")}/clusters/c2`, location: "japaneast" } as never,
        ],
        fileServers: [{ id: `${WS("rg-ml", "ws-b")}/fileServers/nfs` }],
      },
    );
    const by = Object.fromEntries(subjects.map((s) => [s.label, s]));
    expect(by["rg-ml/ws-a"]).toMatchObject({ kind: "batch-workspace", location: "westeurope", source: src(30) });
    expect(by["rg-ml/ws-b"]).toMatchObject({ kind: "batch-workspace", location: "eastus", source: src(25) });
    expect(by["rg-ml/ws-a/c1"]).toMatchObject({
      kind: "batch-cluster",
      location: "westeurope",
      locationFrom: "workspace rg-ml/ws-a",
      source: src(30),
    });
    expect(by["rg-ml/ws-b/c2"]).toMatchObject({ location: "japaneast", locationFrom: undefined });
    expect(by["rg-ml/ws-b/nfs"]).toMatchObject({ kind: "batch-file-server", location: "eastus", locationFrom: "workspace rg-ml/ws-b" });
  });

  it("places the stack's sites by address", () => {
    const subjects = siteSubjects({
      allowedCountries: ["NL"],
      sites: [{ name: "backup-dc", address: "Dam 1, 1012 JS Amsterdam", source: src(12) }],
    });
    expect(subjects).toEqual([
      { kind: "site", id: "site:backup-dc", label: "backup-dc", address: "Dam 1, 1012 JS Amsterdam", source: src(12) },
    ]);
    expect(siteSubjects(undefined)).toEqual([]);
  });
});

describe("placing", () => {
  const subjects: ResidencySubject[] = [
    { kind: "batch-workspace", id: "w1", label: "rg/w1", location: "West Europe" },
    { kind: "batch-workspace", id: "w2", label: "rg/w2", location: "westeurope" },
    { kind: "sql-database", id: "d1", label: "s/d1", location: "East US" },
    { kind: "sql-database", id: "d2", label: "s/d2", location: "atlantis" },
    { kind: "sql-database", id: "d3", label: "s/d3" },
    { kind: "sql-database", id: "d4", label: "s/d4", location: "japaneast" },
    { kind: "site", id: "site:a", label: "a", address: "Dam 1, 1012 JS Amsterdam" },
    { kind: "site", id: "site:b", label: "b", address: "Nowhere 1" },
  ];

  it("looks each region and address up once", () => {
    const needs = placementNeeds(subjects);
    expect(needs.regions.map((r) => r.name).sort()).toEqual(["eastus", "japaneast", "westeurope"]);
    expect(needs.addresses).toEqual(["Dam 1, 1012 JS Amsterdam", "Nowhere 1"]);
  });

  it("places what it can and says why it cannot place the rest, never guessing", () => {
    const regions = new Map<string, GeoAnswer>([
      ["westeurope", { found: true, coordinates: { lat: 52.3667, lng: 4.9 }, country: "NL", place: "Amsterdam" }],
      ["eastus", { found: true, coordinates: { lat: 37.3719, lng: -79.8164 }, country: "US" }],
      ["japaneast", { found: true, coordinates: { lat: 35.68, lng: 139.77 } }],
    ]);
    const addresses = new Map<string, GeoAnswer>([
      [
        "Dam 1, 1012 JS Amsterdam",
        { found: true, coordinates: { lat: 52.373, lng: 4.894 }, country: "NL", place: "Dam 1, Amsterdam", level: "HOUSE_NUMBER" },
      ],
      ["Nowhere 1", { found: false, reason: 'no place matched "Nowhere 1"' }],
    ]);
    const p = Object.fromEntries(placeSubjects(subjects, { regions, addresses }).map((x) => [x.id, x]));
    expect(p.w1).toMatchObject({
      status: "placed",
      country: "NL",
      region: "westeurope",
      location: "West Europe",
      coordinates: { lat: 52.3667, lng: 4.9 },
    });
    expect(p.w2).toMatchObject({ status: "placed", country: "NL" });
    expect(p.d1).toMatchObject({ status: "placed", country: "US", region: "eastus" });
    expect(p.d2.status).toBe("not-applicable");
    expect(p.d2.country).toBeUndefined();
    expect(p.d2.reason).toMatch(/"atlantis" is not a known Azure region/);
    expect(p.d3.reason).toMatch(/no location/);
    expect(p.d4).toMatchObject({ status: "not-applicable", region: "japaneast" });
    expect(p.d4.reason).toMatch(/in no country \(open sea\)/);
    expect(p["site:a"]).toMatchObject({ status: "placed", country: "NL", coordinates: { lat: 52.373, lng: 4.894 } });
    expect(p["site:a"].reason).toMatch(/HOUSE_NUMBER/);
    expect(p["site:b"]).toMatchObject({ status: "not-applicable" });
    expect(p["site:b"].reason).toMatch(/could not be geocoded: no place matched/);
  });
});

describe("reading geocoding answers", () => {
  it("reads the country of the first reverse-geocoding result, and none from an empty one", () => {
    const pt = { lat: 1, lng: 2 };
    expect(pointAnswerOf({ result: [{ countrycode: "nl", city: "Amsterdam" }] }, pt)).toEqual({
      found: true,
      coordinates: pt,
      country: "NL",
      place: "Amsterdam",
    });
    expect(pointAnswerOf({ result: [{ countryCode: "DE", streetName: "Dam" }] }, pt)).toMatchObject({ country: "DE", place: "Dam" });
    expect(pointAnswerOf({ result: [] }, pt)).toEqual({ found: true, coordinates: pt });
  });

  it("reads the best geocoding match, and a reason when there is none", () => {
    expect(addressAnswerOf({ result: [{ lat: 52.37, lng: 4.89, countrycode: "NL", city: "Amsterdam", geocodinglevel: "CITY" }] })).toEqual({
      found: true,
      coordinates: { lat: 52.37, lng: 4.89 },
      country: "NL",
      place: "Amsterdam",
      level: "CITY",
    });
    expect(addressAnswerOf({ result: [], message: "no place matched" })).toEqual({ found: false, reason: "no place matched" });
    expect(addressAnswerOf({ result: [{ city: "X" }] })).toMatchObject({ found: false });
  });
});
