import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorClientSet, type ClientSet } from "../../../src/clients/client-set";
import { discoverDatabases } from "../../../src/domain/facts/discover-databases";
import { listedOnly } from "../../../src/domain/discovery/scope-coverage";
import { withDiscovered } from "../../../src/domain/stack/scope-discovered";
import { parseStackConfig } from "../../../src/domain/stack/stack-config";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

// Discovery through Servers_List / Servers_ListByResourceGroup and Databases_ListByServer, at the
// emulator: every page (pageSize 2), two subscriptions, master never, tag filters on the database's
// tags over its server's, a missing resource group reported (not thrown), each list counted.

const A = "0a0a0a0a-0000-0000-0000-000000000000";
const B = "0b0b0b0b-0000-0000-0000-000000000000";
const SEED = `emulator: { pageSize: 2 }
sql:
  subscriptionId: ${A}
  servers:
    - { name: srv-a1, resourceGroup: rg-1, tags: { env: prod }, databases: [{ name: d1 }, { name: d2 }, { name: d3, tags: { env: test } }] }
    - { name: srv-a2, resourceGroup: rg-1, databases: [{ name: d4 }] }
    - { name: srv-a3, resourceGroup: rg-2, tags: { env: prod }, databases: [{ name: d5, transparentDataEncryption: Disabled }] }
    - { name: srv-b1, resourceGroup: rg-1, subscriptionId: ${B}, tags: { env: prod }, databases: [{ name: d6 }] }
    - { name: srv-b2, resourceGroup: rg-9, subscriptionId: ${B}, databases: [] }
`;

let t: TestEmulator;
let clients: ClientSet;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  clients = emulatorClientSet({ PATH: process.env.PATH }, t.url);
});
afterAll(async () => {
  await clients?.close();
  await t?.close();
});

const stackOf = (scope: string, databases = "") =>
  parseStackConfig("s.yaml", `config:\n  stackwarden:subscriptionId: ${A}\n${databases}  stackwarden:scope:\n${scope}`, {});

const names = (ds: { server: string; database: string }[]) => ds.map((d) => `${d.server}/${d.database}`).sort();

describe("discoverDatabases", () => {
  it("lists every server of every subscription, every page, then every database but master", async () => {
    const serverLists = () =>
      Object.entries(t.emu.stats.byRoute)
        .filter(([route]) => route === "GET /subscriptions/{subscriptionId}/providers/Microsoft.Sql/servers")
        .reduce((n, [, c]) => n + c, 0);
    const before = serverLists();
    const found = await discoverDatabases(clients.reads, stackOf(`    subscriptions: [${A}, ${B}]\n`).scope!);
    expect(names(found.databases)).toEqual(["srv-a1/d1", "srv-a1/d2", "srv-a1/d3", "srv-a2/d4", "srv-a3/d5", "srv-b1/d6"]);
    expect(found.servers).toBe(5);
    expect(found.unread).toEqual([]);
    expect(found.databases.find((d) => d.database === "d3")?.tags).toEqual({ env: "test" });
    expect(found.databases.find((d) => d.database === "d6")?.subscriptionId).toBe(B);
    expect(serverLists() - before).toBe(3); // pages of 2: A's three servers take two requests, B's two one
  });

  it("keeps to the resource groups named, and reports a group that is in none of the subscriptions", async () => {
    const found = await discoverDatabases(
      clients.reads,
      stackOf(`    subscriptions: [${A}, ${B}]\n    resourceGroups: [rg-2, rg-9]\n`).scope!,
    );
    expect(names(found.databases)).toEqual(["srv-a3/d5"]);
    expect(found.unread).toEqual([]); // rg-2 is only in A, rg-9 only in B
    const typo = await discoverDatabases(
      clients.reads,
      stackOf(`    subscriptions: [${A}, ${B}]\n    resourceGroups: [rg-1, rg-typo]\n`).scope!,
    );
    expect(names(typo.databases)).toEqual(["srv-a1/d1", "srv-a1/d2", "srv-a1/d3", "srv-a2/d4", "srv-b1/d6"]);
    expect(typo.unread.map((u) => [u.kind, u.label, u.code])).toEqual([["resource group", `${A}/rg-typo`, "ResourceGroupNotFound"]]);
  });

  it("filters by tags, a database's own over its server's", async () => {
    const found = await discoverDatabases(
      clients.reads,
      stackOf(`    subscriptions: [${A}, ${B}]\n    tags: { include: { env: prod } }\n`).scope!,
    );
    expect(names(found.databases)).toEqual(["srv-a1/d1", "srv-a1/d2", "srv-a3/d5", "srv-b1/d6"]);
    const excluded = await discoverDatabases(clients.reads, stackOf(`    tags: { exclude: { env: "*" } }\n`).scope!);
    expect(names(excluded.databases)).toEqual(["srv-a2/d4"]);
  });
});

describe("withDiscovered", () => {
  it("adds each unlisted database with its subscription and the scope's desired state; listed ones keep theirs", async () => {
    const stack = stackOf(
      `    subscriptions: [${A}, ${B}]\n    exemptions:\n      - { server: srv-b1, reason: migrating }\n`,
      `  stackwarden:databases:\n    - { resourceGroup: rg-1, server: srv-a1, database: d1, transparentDataEncryption: Disabled }\n    - { resourceGroup: rg-7, server: srv-zz, database: gone, transparentDataEncryption: Enabled }\n`,
    );
    const scoped = withDiscovered(stack, await discoverDatabases(clients.reads, stack.scope!));
    expect(scoped.databases.slice(0, 2)).toEqual(stack.databases);
    const added = scoped.databases.slice(2);
    expect(names(added)).toEqual(["srv-a1/d2", "srv-a1/d3", "srv-a2/d4", "srv-a3/d5", "srv-b1/d6"]);
    expect(added.every((d) => d.discovered && d.transparentDataEncryption === "Enabled" && d.source?.line === 7)).toBe(true);
    expect(added.find((d) => d.database === "d6")?.subscriptionId).toBe(B);
    expect(scoped.coverage).toMatchObject({ subscriptions: 2, servers: 5, listed: 1, discovered: 5, listedOutside: ["rg-7/srv-zz/gone"] });
    expect(scoped.exemptions).toEqual([
      expect.objectContaining({ resourceId: expect.stringMatching(/\/servers\/srv-b1\/databases\/d6$/), reason: "migrating" }),
    ]);
    expect(listedOnly(scoped).databases).toEqual(stack.databases);
  });
});
