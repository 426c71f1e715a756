import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import { databaseProtectorOf, protectorsOfOutputs, stackProtectorReads } from "../../../src/domain/facts/database-protectors";
import type { FactClients } from "../../../src/domain/facts/fact-clients";
import type { FactReads } from "../../../src/domain/facts/fact-reads";
import type { GatherContext } from "../../../src/domain/facts/fact-kind";
import { emptyFacts } from "../../../src/domain/facts/gather";
import { customerKeysOf, stackServers } from "../../../src/domain/facts/key-custody-reads";
import { protectorFactsOfRead } from "../../../src/domain/facts/tde-protectors";
import type { ReadFailure } from "../../../src/domain/facts/read-failure";
import type { Database } from "../../../src/services/sql/database-types";
import type { StackConfig } from "../../../src/domain/stack/stack-config";
import { ArmOperations } from "../../../src/platform/arm/arm-operations";
import { ARM_READS } from "../../../src/services/arm-reads";
import { estate, startKeyCustody, type KeyCustodyHarness } from "../../services/keyvault/key-custody-kit";

/** A database's own TDE protector as facts and as the rules judge it, where the estate cannot easily hold the case. */
const SUB = "00000000-0000-0000-0000-000000000000";
const URI = "https://kv.vault.azure.net/keys/tde-db/0123456789abcdef0123456789abcdef";
const UAI = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-db`;
const [server] = stackServers({
  subscriptionId: SUB,
  databases: [{ resourceGroup: "rg", server: "sql-1", database: "db", transparentDataEncryption: "Enabled" }],
});
const dbId = `${server.id}/databases/db`;
const database = (over: Partial<Database> = {}): Database => ({
  id: dbId,
  identity: { type: "UserAssigned", tenantId: SUB, userAssignedIdentities: { [UAI]: { principalId: "p-1", clientId: "c-1" } } },
  properties: { encryptionProtector: URI, encryptionProtectorAutoRotation: true },
  ...over,
});

describe("databaseProtectorOf", () => {
  it("a database with its own encryptionProtector gives an AzureKeyVault protector of that key, with its auto-rotation", () => {
    expect(databaseProtectorOf(database())).toEqual({
      id: dbId,
      properties: { serverKeyType: "AzureKeyVault", uri: URI, autoRotationEnabled: true },
    });
  });

  it("none without one (its server's protector protects it), and none for an empty or odd value", () => {
    expect(databaseProtectorOf(database({ properties: {} }))).toBeUndefined();
    expect(databaseProtectorOf(database({ properties: { encryptionProtector: "" } }))).toBeUndefined();
    expect(databaseProtectorOf(database({ properties: { encryptionProtector: 7 as unknown as string } }))).toBeUndefined();
    expect(databaseProtectorOf(undefined)).toBeUndefined();
  });

  it("the Pulumi sources' outputs: a database's own key and a server's protector key are both named", () => {
    const serverProtector = { id: "p", properties: { serverKeyType: "AzureKeyVault", uri: URI.replace("tde-db", "tde-srv") } };
    const keys = customerKeysOf(protectorsOfOutputs([serverProtector, database(), database({ properties: {} }), undefined]));
    expect(keys.map((k) => [k.key.keyName, k.named])).toEqual([
      ["tde-srv", [0]],
      ["tde-db", [1]],
    ]);
  });
});

describe("a database's own protector as facts and findings", () => {
  const read = (outcome: Parameters<typeof protectorFactsOfRead>[0]["outcome"]) =>
    protectorFactsOfRead({ server, database: { name: "db", id: dbId, identity: database().identity }, outcome });

  it("is about the database (its id, level, name) and carries the identity it reaches its key with", () => {
    const receipt = {
      operation: "Databases_ListByServer",
      path: `${server.id}/databases`,
      apiVersion: "2023-02-01-preview",
      readAt: "2026-06-01T00:00:00Z",
      status: 200,
    };
    const f = read({ read: { value: databaseProtectorOf(database())!, receipt } });
    expect(f.reads).toEqual([receipt]);
    expect(f).toMatchObject({
      id: dbId,
      level: "database",
      database: "db",
      databases: ["db"],
      serverKeyType: "AzureKeyVault",
      keyUri: URI,
      autoRotationEnabled: true,
      identity: { type: "UserAssigned", tenantId: SUB, userAssignedIdentities: { [UAI]: { principalId: "p-1", clientId: "c-1" } } },
    });
    expect(f.key).toMatchObject({ vaultName: "kv", keyName: "tde-db" });
  });

  it("a database that cannot be read (403) fails sql-tde-customer-managed-key, named by the database; the key rules say not applicable", () => {
    const refused: ReadFailure = { status: 403, code: "AuthorizationFailed", message: "no", readAt: "2026-01-01T00:00:00Z" };
    const facts = { ...emptyFacts(SUB), tdeProtectors: [read({ failure: refused })] };
    const { findings } = evaluateCompliance(facts, resolveRuleSettings(undefined), [], Date.parse("2026-06-01T00:00:00Z"));
    const byRule = Object.fromEntries(findings.map((x) => [x.ruleId, x]));
    expect(byRule["sql-tde-customer-managed-key"]).toMatchObject({
      verdict: "fail",
      resourceId: dbId,
      label: "rg/sql-1/db",
      message: "The TDE protector of database rg/sql-1/db must be readable to show who holds its key; HTTP 403 AuthorizationFailed: no",
    });
    expect(byRule["tde-key-validity"].verdict).toBe("not-applicable");
    expect(byRule["tde-key-vault-recoverable"].verdict).toBe("not-applicable");
  });
});

describe("stackProtectorReads against the database-keys estate: one database list per server", () => {
  const ESTATE = join(__dirname, "../../fixtures/estates/database-keys.estate.yaml");
  const HOME = "00000000-0000-0000-0000-000000000000";
  const LIST = `/subscriptions/${HOME}/resourceGroups/rg-dk-data/providers/Microsoft.Sql/servers/sql-dk-shared/databases`;
  const on = (database: string) => ({
    resourceGroup: "rg-dk-data",
    server: "sql-dk-shared",
    database,
    transparentDataEncryption: "Enabled",
  });
  const stack = { subscriptionId: HOME, databases: [on("app"), on("ledger"), on("billing"), on("gone")] } as unknown as StackConfig;
  /** The reads of the emulator's Resource Manager, by name, as the client set sends them. */
  const readsOf = (h: KeyCustodyHarness): FactReads => new ArmOperations(h.options(), ARM_READS);
  /** The context the reads take: the stack, the read port, and `once` as gathering shares reads. */
  const contextOf = (reads: FactReads): GatherContext => {
    const shared = new Map<string, Promise<unknown>>();
    const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
      if (!shared.has(key)) shared.set(key, read());
      return shared.get(key) as Promise<T>;
    };
    return { stack, clients: { reads } as FactClients, concurrency: 4, once } as unknown as GatherContext;
  };

  it("picks each database's own protector out of the list; one not listed stays with its server", async () => {
    const h = await startKeyCustody(estate(ESTATE));
    try {
      const reads = await stackProtectorReads(contextOf(readsOf(h)));
      // The server's entry keeps the databases it protects; a database's own entry carries its whole server.
      expect(reads.map((r) => [r.server.databases, r.database?.name, r.outcome.read?.receipt.operation])).toEqual([
        [["app", "gone"], undefined, "EncryptionProtectors_Get"],
        [["app", "ledger", "billing", "gone"], "ledger", "Databases_ListByServer"],
        [["app", "ledger", "billing", "gone"], "billing", "Databases_ListByServer"],
      ]);
      expect(reads[1].database?.identity?.type).toBe("UserAssigned");
    } finally {
      await h.close();
    }
  });

  it("is worked out once per gathering, however many kinds ask: each server listed once, the same entries for all", async () => {
    const h = await startKeyCustody(estate(ESTATE));
    try {
      let lists = 0;
      const real = readsOf(h);
      const reads: FactReads = {
        read: (operation, params, signal) => {
          if (operation === "Databases_ListByServer") lists += 1;
          return real.read(operation, params, signal);
        },
        failureOf: (e) => real.failureOf(e),
      };
      const ctx = contextOf(reads);
      const [first, second] = await Promise.all([stackProtectorReads(ctx), stackProtectorReads(ctx)]);
      expect(second).toBe(first);
      expect(lists).toBe(1);
    } finally {
      await h.close();
    }
  });

  it("finds a stack database in its server's list whatever the case it is written in", async () => {
    const h = await startKeyCustody(estate(ESTATE));
    try {
      const shouting = { ...stack, databases: [on("APP"), on("Ledger")] } as unknown as StackConfig;
      const reads = await stackProtectorReads({ ...contextOf(readsOf(h)), stack: shouting });
      expect(reads.map((r) => r.database?.name)).toEqual([undefined, "Ledger"]);
    } finally {
      await h.close();
    }
  });

  it("a refused list (403) makes each of the server's stack databases an entry that says so, as a refused Databases_Get did", async () => {
    const h = await startKeyCustody({ ...estate(ESTATE), faults: { rules: [{ match: LIST, status: 403, rate: 1 }], maxConsecutive: 0 } });
    try {
      const reads = await stackProtectorReads(contextOf(readsOf(h)));
      expect(reads.map((r) => [r.database?.name, r.outcome.failure?.status])).toEqual([
        [undefined, undefined],
        ["app", 403],
        ["ledger", 403],
        ["billing", 403],
        ["gone", 403],
      ]);
      expect(reads[0].server.databases).toEqual([]);
      expect(reads[1].outcome.failure?.operation).toBe("Databases_ListByServer");
    } finally {
      await h.close();
    }
  });
});
