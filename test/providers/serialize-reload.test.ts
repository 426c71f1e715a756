import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DataSourceKind } from "../../src/resources/data-sources";
import { SqlClient } from "../../src/services/sql/client";
import * as sourceProviders from "../../providers";
import { FAST_RETRY, type TestEmulator } from "../helpers/emulator";
import { serializeProvider, PROJECT_ROOT } from "../helpers/provider-plugin";
import { ALL_KINDS, KIND_CASES, dbId, dbRef, sqlDatabase, startEstate, useProviderEnv } from "./provider-test-kit";

/**
 * Serialize, re-load and call: each provider is serialized as `pulumi.dynamic.Resource` does,
 * re-loaded from the text with require-from-string exactly as the dynamic-provider plugin does
 * (`requireFromString(text).handler()`), and its methods are called against a real emulator.
 * Two origins: the TypeScript source as vitest loads it, and the compiled CommonJS in dist/ (what a
 * `pulumi up` of the program runs after `npm run build`).
 */

const requireFromString = require("require-from-string") as (code: string) => { handler(): pulumi.dynamic.ResourceProvider };
type Providers = {
  tdeProvider: pulumi.dynamic.ResourceProvider;
  dataSourceProvider(kind: DataSourceKind): pulumi.dynamic.ResourceProvider;
};
const ORIGINS: [string, () => Providers][] = [
  ["source (vitest)", () => sourceProviders],
  ["compiled (dist/)", () => require(join(PROJECT_ROOT, "dist/providers/index.js")) as Providers],
];

async function reload(provider: pulumi.dynamic.ResourceProvider): Promise<{ text: string; p: Required<pulumi.dynamic.ResourceProvider> }> {
  const text = await serializeProvider(provider);
  return { text, p: requireFromString(text).handler() as Required<pulumi.dynamic.ResourceProvider> };
}

/** What must not be in a serialized provider: the core, the transport, or state captured by value. */
function expectLean(text: string): void {
  expect(text.length).toBeLessThan(16_000);
  expect(text).toContain("exports.handler");
  expect(text).toContain("loadCore");
  expect(text).not.toMatch(/undici/i);
  expect(text).not.toMatch(/new Map\b|Symbol\(/);
  // Our core stays in dist/, referenced by path at call time, never copied into the stack.
  for (const marker of [
    "function applyTdeInputs",
    "function waitForScan",
    "class SqlClient",
    "class BatchAiClient",
    "STATIC_KEY_SCHEMAS",
    "function readDataSource",
    "@pulumi/pulumi",
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
      const { text, p } = await reload(load().tdeProvider);
      expectLean(text);

      const inputs = { ...dbRef("orders"), transparentDataEncryption: "Enabled", pollIntervalMs: 20, scanTimeoutSeconds: 10 };
      expect(await p.check({}, inputs)).toEqual({ inputs, failures: [] });
      const bad = await p.check({}, { ...inputs, transparentDataEncryption: "On", subscriptionId: "not-a-guid", color: "red" });
      expect(bad.failures!.map((f) => f.property).sort()).toEqual(["color", "subscriptionId", "transparentDataEncryption"]);

      expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Disabled");
      const created = await p.create(inputs);
      expect(created.id).toBe(`${dbId("orders")}/transparentDataEncryption/current`);
      expect(created.outs).toEqual({ ...inputs, status: "Enabled", databaseId: dbId("orders") });
      // The scan ran to its end in the emulator (the create waited for it).
      expect(sqlDatabase(t.emu, "orders").transparentDataEncryption).toBe("Enabled");
      expect(await sql.listTransparentDataEncryptionActivities(dbRef("orders"))).toEqual([]);

      const read = await p.read(created.id, created.outs);
      expect(read).toMatchObject({ id: created.id, props: { status: "Enabled" }, inputs: { ...inputs } });
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
      for (const kind of ALL_KINDS) {
        const c = KIND_CASES[kind];
        const { text, p } = await reload(providers.dataSourceProvider(kind));
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
        const { serviceObjective: _intended, ...required } = c.inputs;
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
      const { p } = await reload(load().dataSourceProvider("sql:ServiceTierAdvisors"));
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
      const tde = (await reload(load().tdeProvider)).p;
      await expect(tde.create({ ...dbRef("ghost"), transparentDataEncryption: "Enabled", pollIntervalMs: 20 })).rejects.toThrow(/ghost/);
      const jobs = (await reload(load().dataSourceProvider("batchai:Jobs"))).p;
      await expect(jobs.read("/subscriptions/x/not-a-jobs-id", {})).rejects.toThrow(/is not an id of a Jobs data source/);
    });
  });
}

describe("loadCore under the re-loaded provider", () => {
  /** Runs `fn` with STACKWARDEN_HOME set to `home`, restoring it after. */
  async function withHome(home: string, fn: () => Promise<void>): Promise<void> {
    const saved = process.env.STACKWARDEN_HOME;
    process.env.STACKWARDEN_HOME = home;
    try {
      await fn();
    } finally {
      if (saved === undefined) delete process.env.STACKWARDEN_HOME;
      else process.env.STACKWARDEN_HOME = saved;
    }
  }

  it("tells an unbuilt project from a built one that misses a dependency", async () => {
    const { p } = await reload(sourceProviders.tdeProvider);
    const home = mkdtempSync(join(tmpdir(), "stackwarden-home-"));
    try {
      writeFileSync(join(home, "package.json"), JSON.stringify({ name: "stackwarden" }));
      await withHome(home, async () => {
        await expect(p.check({}, {})).rejects.toThrow(
          `stackwarden is not built in ${home}: run \`npm run build\` (missing dist/src/resources/tde-resource.js)`,
        );
      });
      mkdirSync(join(home, "dist/src/resources"), { recursive: true });
      writeFileSync(join(home, "dist/src/resources/tde-resource.js"), 'require("stackwarden-no-such-dependency");\n');
      await withHome(home, async () => {
        await expect(p.check({}, {})).rejects.toThrow(/Cannot find module 'stackwarden-no-such-dependency'/);
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("names the fix when run outside the project", async () => {
    const { p } = await reload(sourceProviders.tdeProvider);
    const cwd = process.cwd();
    const home = process.env.STACKWARDEN_HOME;
    delete process.env.STACKWARDEN_HOME;
    process.chdir("/");
    try {
      await expect(p.check({}, {})).rejects.toThrow(
        /cannot find the stackwarden project above \/; run Pulumi from the project directory or set STACKWARDEN_HOME/,
      );
      process.env.STACKWARDEN_HOME = PROJECT_ROOT;
      expect((await p.check({}, {})).failures!.length).toBeGreaterThan(0);
    } finally {
      process.chdir(cwd);
      if (home === undefined) delete process.env.STACKWARDEN_HOME;
      else process.env.STACKWARDEN_HOME = home;
    }
  });
});
