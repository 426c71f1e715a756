import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireCompiledCli, runCliProcess } from "../../helpers/cli-process";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCliWith, stackDir } from "./cli-harness";
import { RESIDENCY_ESTATE, RESIDENCY_GEOCODING_KEY as KEY, RESIDENCY_SUBSCRIPTION as SUB } from "../../fixtures/estates/residency";

/**
 * `stackwarden geocode` and `stackwarden where` against the emulator: an estate with a database and
 * a Batch AI workspace in West Europe, a workspace in East US, a server in a location that is no
 * Azure region, and a geocoding service that accepts one key only.
 */

const STACK = (allowed: string) => `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg-data, server: sql-eu, database: orders, transparentDataEncryption: Enabled }
    - { resourceGroup: rg-data, server: sql-lost, database: legacy, transparentDataEncryption: Enabled }
  stackwarden:batch:
    resourceGroups: [rg-ml]
    workspaces:
      - { resourceGroup: rg-ml, workspace: ws-eu }
  stackwarden:residency:
    allowedCountries: [${allowed}]
    sites:
      - { name: backup-dc, address: "Dam 1, 1012 JS Amsterdam" }
      - { name: moon-base, address: "1 Tranquility Base, 00000 Nowhere, Atlantis" }
`;

let t: TestEmulator;
let dir: string;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(RESIDENCY_ESTATE) });
  dir = stackDir({ "Pulumi.us.yaml": STACK("US"), "Pulumi.usnl.yaml": STACK("US, NL") });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    STACKWARDEN_ARM_ENDPOINT: t.url,
    STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata`,
    STACKWARDEN_GEOCODING_ENDPOINT: `${t.url}/geocoding`,
    STACKWARDEN_GEOCODING_API_KEY: KEY,
    ...extra,
  };
}

const run = (argv: string[], extra: Record<string, string> = {}) => runCliWith(argv, { cwd: dir, env: env(extra) });

interface WherePlacement {
  kind: string;
  label: string;
  status: string;
  country?: string;
  region?: string;
  coordinates?: { lat: number; lng: number };
  reason: string;
  verdict?: string;
  source?: { file: string; line: number };
}

describe("stackwarden where", () => {
  it("--output json: every resource and site, placed or not applicable with the reason, judged against the stack", async () => {
    const r = await run(["where", "--config", "Pulumi.us.yaml", "--output", "json"]);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as { allowedCountries: string[]; placements: WherePlacement[] };
    expect(doc.allowedCountries).toEqual(["US"]);
    const by = Object.fromEntries(doc.placements.map((p) => [p.label, p]));
    expect(Object.keys(by).sort()).toEqual([
      "backup-dc",
      "moon-base",
      "rg-ml/ws-eu",
      "rg-ml/ws-eu/cpu-d4",
      "rg-ml/ws-eu/nfs",
      "rg-ml/ws-us",
      "sql-eu/orders",
      "sql-lost/legacy",
    ]);
    expect(by["sql-eu/orders"]).toMatchObject({
      kind: "sql-database",
      status: "placed",
      country: "NL",
      region: "westeurope",
      coordinates: { lat: 52.3667, lng: 4.9 },
      verdict: "violation",
      source: { line: 4 },
    });
    expect(by["sql-lost/legacy"]).toMatchObject({ status: "not-applicable", verdict: "not-applicable", source: { line: 5 } });
    expect(by["sql-lost/legacy"].reason).toMatch(
      /"Atlantis Central" \(from its transparent data encryption configuration\) is not a known Azure region/,
    );
    expect(by["rg-ml/ws-eu"]).toMatchObject({ kind: "batch-workspace", country: "NL", verdict: "violation", source: { line: 9 } });
    expect(by["rg-ml/ws-eu/cpu-d4"]).toMatchObject({ kind: "batch-cluster", country: "NL", region: "westeurope" });
    expect(by["rg-ml/ws-eu/nfs"]).toMatchObject({ kind: "batch-file-server", country: "NL" });
    expect(by["rg-ml/ws-us"]).toMatchObject({ country: "US", region: "eastus", verdict: "pass", source: { line: 7 } });
    expect(by["backup-dc"]).toMatchObject({
      kind: "site",
      status: "placed",
      country: "NL",
      coordinates: { lat: 52.37299, lng: 4.8941 },
      source: { line: 13 },
    });
    expect(by["moon-base"]).toMatchObject({ kind: "site", status: "not-applicable", verdict: "not-applicable" });
    expect(by["moon-base"].reason).toMatch(/could not be geocoded/);
  });

  it("allowing US and NL leaves only what cannot be placed unjudged", async () => {
    const r = await run(["where", "--config", "Pulumi.usnl.yaml", "--output", "json"]);
    const doc = JSON.parse(r.out) as { placements: WherePlacement[] };
    const verdicts = doc.placements.map((p) => p.verdict);
    expect(verdicts.filter((v) => v === "violation")).toEqual([]);
    expect(doc.placements.filter((p) => p.verdict === "not-applicable").map((p) => p.label)).toEqual(["sql-lost/legacy", "moon-base"]);
  });

  it("the table: region, coordinates, country and whether it is allowed", async () => {
    const r = await run(["where", "--config", "Pulumi.us.yaml"]);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split("\n");
    expect(lines[1]).toMatch(/^KIND\s+RESOURCE\s+REGION\s+LAT\s+LNG\s+COUNTRY\s+ALLOWED\s+NOTE$/);
    expect(lines.find((l) => l.includes("sql-eu/orders"))).toMatch(
      /SQL database\s+sql-eu\/orders\s+westeurope\s+52\.3667\s+4\.9000\s+NL\s+NO/,
    );
    expect(lines.find((l) => l.includes("rg-ml/ws-us "))).toMatch(/eastus\s+37\.3719\s+-79\.8164\s+US\s+yes/);
    expect(lines.find((l) => l.includes("backup-dc"))).toMatch(
      /site\s+backup-dc\s+-\s+52\.3730\s+4\.8941\s+NL\s+NO\s+Dam 1, 1012 JS Amsterdam \(geocoded at HOUSE_NUMBER level/,
    );
    expect(lines.find((l) => l.includes("sql-lost/legacy"))).toMatch(/n\/a\s+n\/a\s+not applicable: location "Atlantis Central"/);
    expect(r.out).toContain("Allowed countries (stackwarden:residency): US");
  });

  it("a key the service refuses is one line on stderr, exit 1, the key nowhere", async () => {
    const r = await run(["where", "--config", "Pulumi.us.yaml"], { STACKWARDEN_GEOCODING_API_KEY: "gk-not-a-subscriber-77aa" });
    expect(r.code).toBe(1);
    expect(r.err.split("\n")).toHaveLength(1);
    expect(r.err).toMatch(/GeocodingUnauthorized: the geocoding service refused the API key/);
    expect(r.out + r.err).not.toContain("gk-not-a-subscriber-77aa");
  });
});

describe("stackwarden geocode", () => {
  it('places "Dam 1, 1012 JS Amsterdam" in NL', async () => {
    const r = await run(["geocode", "Dam 1, 1012 JS Amsterdam", "--output", "json"]);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as { result: { countrycode: string; geocodinglevel: string }[]; parsedAddress: { zipCode: string } };
    expect(doc.result[0]).toMatchObject({ countrycode: "NL", geocodinglevel: "HOUSE_NUMBER" });
    expect(doc.parsedAddress.zipCode).toBe("1012 JS");
  });

  it("the table names the match, country, position and parts", async () => {
    const r = await run(["geocode", "Platz der Republik 1, 11011 Berlin"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^Match\s+Berlin \(CITY level\)$/m);
    expect(r.out).toMatch(/^Country\s+DE \(Germany\)$/m);
    expect(r.out).toMatch(/^Parsed\s+house number 1 · street Platz der Republik · postcode 11011 · city Berlin · country DE$/m);
  });

  it("no match is exit 1 with the service's reason", async () => {
    const r = await run(["geocode", "Nowhere Lane 1, 99999 Qqqqville", "--country", "DE"]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'stackwarden geocode: SW_RESOURCE_NOT_FOUND: no place found for "Nowhere Lane 1, 99999 Qqqqville": no place matched "Qqqqville" in DE',
    );
  });

  it("bad input is a one-line usage error", async () => {
    expect((await run(["geocode", "Dam 1", "--country", "Netherlands"])).err).toMatch(/--country: expected an ISO 3166-1 alpha-2 code/);
    expect((await run(["geocode", " "])).err).toMatch(/the address is empty/);
    expect((await run(["geocode", "Dam 1", "--output", "xml"])).code).toBe(1);
  });
});

describe("the API key, with STACKWARDEN_LOG=debug, in a real process", () => {
  it("appears nowhere in stdout or stderr, whether the key is accepted or refused", async () => {
    requireCompiledCli();
    const wrong = "gk-planted-wrong-key-41c9";
    const runs: { args: string[]; extra: Record<string, string>; code: number }[] = [
      { args: ["geocode", "Dam 1, 1012 JS Amsterdam"], extra: { STACKWARDEN_LOG: "debug" }, code: 0 },
      { args: ["where", "--config", "Pulumi.us.yaml", "--output", "json"], extra: { STACKWARDEN_LOG: "debug" }, code: 0 },
      { args: ["geocode", "Dam 1, 1012 JS Amsterdam"], extra: { STACKWARDEN_LOG: "debug", STACKWARDEN_GEOCODING_API_KEY: wrong }, code: 1 },
    ];
    for (const { args, extra, code } of runs) {
      const r = await runCliProcess(args, { cwd: dir, env: env(extra) });
      expect(r.code, r.stderr).toBe(code);
      expect(r.stderr).toMatch(/\[stackwarden\] (geocode|reversegeocode) GET .*api_key=REDACTED/);
      for (const k of [KEY, wrong]) expect(r.stdout + r.stderr, `the key leaked: ${r.stdout}${r.stderr}`).not.toContain(k);
    }
  }, 60_000);
});
