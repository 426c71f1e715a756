import { describe, expect, it } from "vitest";
import type { Finding } from "../../src/domain/compliance/finding";
import { emptyFacts } from "../../src/domain/facts/gather";
import type { ComplianceFacts } from "../../src/domain/facts/model/compliance-facts";
import { UNKNOWN, type Maybe } from "../../src/platform/unknown-value";
import { databasesRead, mergedReads, withCompliance } from "../../src/usecases/watch-inventory";
import { planOf, stackOf, SUB } from "../interfaces/watch/status-fixtures";
import { sqlDatabaseId } from "../../src/platform/arm/resource-id";

// What the watcher knows of each database for the stack's page: its sync state from the read, its
// compliance from the findings about it, kept across re-reads.

const stack = stackOf("dev", ["orders", "billing", "ledger"]);
const found = (database: string, server = "sql-1") => ({ subscriptionId: SUB, resourceGroup: "rg-data", server, database });

function factsOf(live: Record<string, Maybe<string>>, extra: { server: string; database: string; live: string }[] = []): ComplianceFacts {
  return {
    ...emptyFacts(SUB),
    databases: [
      ...Object.entries(live).map(([database, l]) => ({
        id: sqlDatabaseId(found(database)),
        ...found(database),
        liveTdeStatus: l as Maybe<string>,
      })),
      ...extra.map((e) => ({ id: sqlDatabaseId(found(e.database, e.server)), ...found(e.database, e.server), liveTdeStatus: e.live })),
    ],
  };
}

describe("databasesRead", () => {
  it("a listed database is drifted while the read leaves it drifted, unknown when unread", () => {
    const items = planOf(stack, ["billing"]);
    const facts = factsOf({ orders: "Enabled", billing: "Disabled", ledger: UNKNOWN });
    const read = databasesRead({ stack, facts, items, remaining: items.filter((i) => i.action !== "none") });
    expect(read.map((d) => [d.label, d.sync, d.live, d.discovered])).toEqual([
      ["rg-data/sql-1/orders", "in-sync", "Enabled", false],
      ["rg-data/sql-1/billing", "drifted", "Disabled", false],
      ["rg-data/sql-1/ledger", "unknown", null, false],
    ]);
    // A repair that converged leaves it in sync.
    const repaired = databasesRead({ stack, facts, items, remaining: [] });
    expect(repaired[1].sync).toBe("in-sync");
  });

  it("a database discovered in the scope (no plan item) is drifted when its live state differs from the scope's", () => {
    const scoped = { ...stack, scope: { transparentDataEncryption: "Enabled" as const } as NonNullable<typeof stack.scope> };
    const facts = factsOf({ orders: "Enabled" }, [
      { server: "sql-9", database: "found-off", live: "Disabled" },
      { server: "sql-9", database: "found-on", live: "Enabled" },
    ]);
    const read = databasesRead({ stack: scoped, facts, items: planOf(stack), remaining: [] });
    expect(read.map((d) => [d.label, d.server, d.sync, d.discovered])).toEqual([
      ["rg-data/sql-1/orders", "sql-1", "in-sync", false],
      ["rg-data/sql-9/found-off", "sql-9", "drifted", true],
      ["rg-data/sql-9/found-on", "sql-9", "in-sync", true],
    ]);
    // Without a scope, a database the stack does not name is not the stack's.
    expect(databasesRead({ stack, facts, items: planOf(stack), remaining: [] }).map((d) => d.label)).toEqual(["rg-data/sql-1/orders"]);
  });
});

describe("mergedReads and withCompliance", () => {
  const items = planOf(stack, ["billing"]);
  const sweep = databasesRead({
    stack,
    facts: factsOf({ orders: "Enabled", billing: "Disabled", ledger: "Enabled" }),
    items,
    remaining: items.filter((i) => i.action !== "none"),
  });

  it("a re-read replaces the databases it read, keeps the others in place, appends new ones and drops gone ones", () => {
    const reread = [
      { ...sweep[1], sync: "in-sync" as const, live: "Enabled" },
      { ...sweep[0], id: "/x/NEW", label: "rg/s/new" },
    ];
    const merged = mergedReads(sweep, reread, [sweep[2].id.toLowerCase()]);
    expect(merged.map((d) => [d.label, d.sync])).toEqual([
      ["rg-data/sql-1/orders", "in-sync"],
      ["rg-data/sql-1/billing", "in-sync"],
      ["rg/s/new", "in-sync"],
    ]);
  });

  it("counts the failing findings about each database; a mandatory one makes it non-compliant, an exempt one does not", () => {
    const finding = (resourceId: string, level: Finding["level"], verdict: Finding["verdict"]): Finding => ({
      ruleId: "r",
      resourceId: resourceId.toUpperCase(),
      label: "x",
      verdict,
      level,
      message: "m",
    });
    const rows = withCompliance(sweep, [
      finding(sweep[1].id, "mandatory", "fail"),
      finding(sweep[1].id, "advisory", "fail"),
      finding(sweep[2].id, "mandatory", "exempt"),
      finding(sweep[0].id, "mandatory", "pass"),
    ]);
    expect(rows.map((r) => [r.compliance, r.mandatory, r.advisory])).toEqual([
      ["compliant", 0, 0],
      ["non-compliant", 1, 1],
      ["compliant", 0, 0],
    ]);
  });
});
