import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CarrierToken } from "../../src/domain/facts/carrier";
import { allDataSources } from "../../src/domain/facts/data-source-registry";
import { SqlClient } from "../../src/services/sql/client";
import * as sourceProviders from "../../providers";
import { FAST_RETRY, type TestEmulator } from "../helpers/emulator";
import { PROJECT_ROOT } from "../helpers/provider-plugin";
import { ALL_KINDS, KIND_CASES, TEST_STACK, dbId, dbRef, sqlDatabase, startEstate, useProviderEnv } from "./provider-test-kit";

/**
 * Serialize, re-load and call: each resource stores `providerText(name)` as its `__provider`; the
 * dynamic-provider plugin re-loads that text with require-from-string and calls `handler()`
 * (`requireFromString(text).handler()`, exactly as the plugin does), and the provider it returns is
 * called against a real emulator. The text comes from the providers module as vitest loads it
 * (TypeScript source) and as the compiled program (dist/) does; either loads the compiled providers
 * from dist/ at call time (npm run build).
 */

const requireFromString = require("require-from-string") as (code: string) => { handler(): pulumi.dynamic.ResourceProvider };
type Providers = { providerText(name: "tde" | CarrierToken): string };
const ORIGINS: [string, () => Providers][] = [
  ["source (vitest)", () => sourceProviders],
  ["compiled (dist/)", () => require(join(PROJECT_ROOT, "dist/providers/index.js")) as Providers],
];

function reload(text: string): { text: string; p: Required<pulumi.dynamic.ResourceProvider> } {
  return { text, p: requireFromString(text).handler() as Required<pulumi.dynamic.ResourceProvider> };
}

/** What a stored provider must be: small (it is stored twice per resource), and no code of ours, only where to load it. */
function expectLean(text: string): void {
  expect(text.length).toBeLessThanOrEqual(1024);
  expect(text).toContain("exports.handler");
  expect(text).toContain("dist/providers/provider-entry.js");
  expect(text).not.toMatch(/undici|@pulumi\/pulumi|new Map\b|Symbol\(/);
  for (const marker of [
    "function applyTdeInputs",
    "function waitForScan",
    "class SqlClient",
    "STATIC_KEY_SCHEMAS",
    "function readDataSource",
  ]) {
    expect(text).not.toContain(marker);
  }
}

for (const [origin, load] of ORIGINS) {
  describe(`serialize, re-load and call: ${origin}`, () => {
    let t: TestEmulator;
    let restoreEnv: () => void;
    let sql: SqlClient;
    beforeAll(async () => {
      t = await startEstate();
      restoreEnv = useProviderEnv(t);
      sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
    });
    afterAll(async () => {
      restoreEnv();
      await t.close();
    });

    it("the TDE provider: small text, no captured core; check, create (PUT + scan), read, update, delete", async () => {
      const { text, p } = reload(load().providerText("tde"));
      expectLean(text);

      const inputs = {
        ...dbRef("orders"),
        transparentDataEncryption: "Enabled",
        pollIntervalMs: 20,
        scanTimeoutSeconds: 10,
        stack: TEST_STACK,
      };
      expect(await p.check({}, inputs)).toEqual({ inputs, failures: [] });
      const bad = await p.check({}, { ...inputs, transparentDataEncryption: "On", subscriptionId: "not-a-guid", color: "red" });
      expect(bad.failures!.map((f) => f.property).sort()).toEqual(["color", "subscriptionId", "transparentDataEncryption"]);

      expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Disabled");
      const created = await p.create(inputs);
      expect(created.id).toBe(`${dbId("orders")}/transparentDataEncryption/current`);
      expect(created.outs).toEqual({ ...inputs, status: "Enabled", databaseId: dbId("orders"), location: "East US" });
      // The scan ran to its end in the emulator (the create waited for it).
      expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Enabled");
      expect(await sql.listTransparentDataEncryptionActivities(dbRef("orders"))).toEqual([]);

      const read = await p.read(created.id, created.outs);
      expect(read).toMatchObject({ id: created.id, props: { status: "Enabled", location: "East US" }, inputs: { ...inputs } });
      // The location is an output only: the inputs a refresh hands back pass check.
      expect(read.inputs).not.toHaveProperty("location");
      expect((await p.check({}, read.inputs!)).failures).toEqual([]);
      // A read by id only (an import or `.get`) finds the database from the id.
      expect((await p.read(created.id, {})).props).toMatchObject({ ...dbRef("orders"), status: "Enabled", databaseId: dbId("orders") });

      expect(await p.diff(created.id, created.outs, inputs)).toMatchObject({ changes: false, replaces: [] });
      const toDisabled = { ...inputs, transparentDataEncryption: "Disabled" };
      expect(await p.diff(created.id, created.outs, toDisabled)).toMatchObject({ changes: true, replaces: [] });
      const updated = await p.update(created.id, created.outs, toDisabled);
      expect(updated.outs).toMatchObject({ status: "Disabled" });
      expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Disabled");

      // Default onDelete (retain) leaves the database as it is; no PUT is sent.
      const putsBefore = t.emu.stats.byRoute;
      const countPuts = (s: Record<string, number>) =>
        Object.entries(s)
          .filter(([k]) => k.startsWith("PUT "))
          .reduce((n, [, v]) => n + v, 0);
      const before = countPuts(putsBefore);
      await p.delete(created.id, updated.outs);
      expect(countPuts(t.emu.stats.byRoute)).toBe(before);
      expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Disabled");
      // onDelete: Enabled sets that status first.
      await p.delete(created.id, { ...updated.outs, onDelete: "Enabled" });
      expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Enabled");
    });

    it("every data-source kind: small text; check, create and read-by-id return the seeded objects; delete sends nothing", async () => {
      // `archive` is being encrypted: its TDE activity data source has something to show.
      await sql.putTransparentDataEncryption(dbRef("archive"), "Enabled");
      const providers = load();
      // Every case is a registered data source (a renamed token fails here), none of key custody's
      // (test/providers/key-custody-provider.test.ts). A source registered later without a case here
      // (its own test has one) still serializes, re-loads lean and names its token.
      const sources = allDataSources().filter((s) => s.unreadable !== "reported");
      expect(sources.map((s) => s.token)).toEqual(expect.arrayContaining([...ALL_KINDS]));
      for (const s of sources) {
        const { text } = reload(providers.providerText(s.token));
        expectLean(text);
        expect(text, s.token).toContain(JSON.stringify(s.token));
      }
      for (const kind of ALL_KINDS) {
        const c = KIND_CASES[kind];
        const { text, p } = reload(providers.providerText(kind));
        expectLean(text);
        expect(text, kind).toContain(JSON.stringify(kind));

        expect((await p.check({}, c.inputs)).failures, kind).toEqual([]);
        const created = await p.create(c.inputs);
        expect(created.id, kind).toBe(c.id);
        const { [c.output]: data, ...echoed } = created.outs;
        expect(echoed, kind).toEqual(c.inputs);
        c.expectData(data);

        const byId = await p.read(c.id, {});
        expect(byId.id, kind).toBe(c.id);
        const { serviceObjective: _intended, ...required } = c.inputs as Record<string, string>;
        expect(byId.inputs, kind).toEqual(required);
        c.expectData(byId.props[c.output]);

        expect(await p.diff(c.id, created.outs, c.inputs), kind).toEqual({ changes: false });

        const requests = t.emu.stats.total;
        await p.delete(c.id, created.outs);
        expect(t.emu.stats.total, `${kind}: delete must not call the API`).toBe(requests);
      }
    });

    it("a data source's diff reports a change when the API's answer changed, and update re-reads it", async () => {
      const c = KIND_CASES["sql:ServiceTierAdvisors"];
      const { p } = reload(load().providerText("sql:ServiceTierAdvisors"));
      const created = await p.create(c.inputs);
      sqlDatabase(t.emu, "orders").serviceTierAdvisors[0].confidence = 0.42;
      t.emu.store.changed();
      expect(await p.diff(c.id, created.outs, c.inputs)).toEqual({ changes: true });
      const updated = await p.update(c.id, created.outs, c.inputs);
      expect((updated.outs as any).advisors[0].properties.confidence).toBe(0.42);
      expect(await p.diff(c.id, updated.outs!, c.inputs)).toEqual({ changes: false });
      // Another database is another data source: replace. Another intended tier: update.
      expect(await p.diff(c.id, updated.outs!, { ...c.inputs, database: "customers" })).toEqual({ changes: true, replaces: ["database"] });
      expect(await p.diff(c.id, updated.outs!, { ...c.inputs, serviceObjective: "S2" })).toEqual({ changes: true });
    });

    it("errors from a re-loaded provider are clear: a missing database and a wrong id", async () => {
      const tde = reload(load().providerText("tde")).p;
      await expect(
        tde.create({ ...dbRef("ghost"), transparentDataEncryption: "Enabled", pollIntervalMs: 20, stack: TEST_STACK }),
      ).rejects.toThrow(/ghost/);
      const jobs = reload(load().providerText("batchai:Jobs")).p;
      await expect(jobs.read("/subscriptions/x/not-a-jobs-id", {})).rejects.toThrow(/is not an id of a Jobs data source/);
    });
  });
}

describe("where the re-loaded provider finds the project", () => {
  /** Runs `fn` with STACKWARDEN_HOME set to `home`, restoring it after. */
  async function withHome(home: string | undefined, fn: () => Promise<void> | void): Promise<void> {
    const saved = process.env.STACKWARDEN_HOME;
    if (home === undefined) delete process.env.STACKWARDEN_HOME;
    else process.env.STACKWARDEN_HOME = home;
    try {
      await fn();
    } finally {
      if (saved === undefined) delete process.env.STACKWARDEN_HOME;
      else process.env.STACKWARDEN_HOME = saved;
    }
  }

  it("an unbuilt project: Node's error names the missing file; a built one that misses a dependency keeps Node's message", async () => {
    const text = sourceProviders.providerText("tde");
    const home = mkdtempSync(join(tmpdir(), "stackwarden-home-"));
    try {
      await withHome(home, () => {
        expect(() => reload(text)).toThrow(`Cannot find module '${home}/dist/providers/provider-entry.js'`);
      });
      mkdirSync(join(home, "dist/providers"), { recursive: true });
      writeFileSync(join(home, "dist/providers/provider-entry.js"), 'require("stackwarden-no-such-dependency");\n');
      await withHome(home, () => {
        expect(() => reload(text)).toThrow(/Cannot find module 'stackwarden-no-such-dependency'/);
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("finds the project above the working directory (Pulumi runs the plugin in stacks/), or at STACKWARDEN_HOME", async () => {
    const text = sourceProviders.providerText("tde");
    const cwd = process.cwd();
    try {
      process.chdir(join(PROJECT_ROOT, "stacks"));
      await withHome(undefined, async () => {
        expect((await reload(text).p.check({}, {})).failures!.length).toBeGreaterThan(0);
      });
      process.chdir("/");
      await withHome(PROJECT_ROOT, async () => {
        expect((await reload(text).p.check({}, {})).failures!.length).toBeGreaterThan(0);
      });
    } finally {
      process.chdir(cwd);
    }
  });

  it("a name no provider has (a stack from another version) is refused clearly", async () => {
    await withHome(PROJECT_ROOT, () => {
      expect(() => reload(sourceProviders.providerText("sql:NoSuchThing"))).toThrow(
        'stackwarden has no dynamic provider named "sql:NoSuchThing"',
      );
    });
  });
});
