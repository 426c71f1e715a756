import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangeQueue } from "../../src/domain/changes/change-queue";
import { readEventGridDelivery } from "../../src/domain/changes/event-grid-changes";
import { MonitorClient } from "../../src/services/monitor/client";
import { SqlClient } from "../../src/services/sql/client";
import { ChangeFeed } from "../../src/usecases/change-feed";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";

// The Activity Log, read through the monitor client and the change feed, against the emulator's
// ActivityLogs_List (its entries as Azure writes them: Started, then Succeeded, per write).

const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  scanDurationMs: 50
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: a, transparentDataEncryption: Enabled }
        - { name: b, transparentDataEncryption: Enabled }
`;
const ref = (database: string) => ({ subscriptionId: SUB, resourceGroup: "rg", server: "s1", database });
const tdeId = (database: string) =>
  `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/${database}/transparentDataEncryption/current`;

let t: TestEmulator;
let monitor: MonitorClient;
let sql: SqlClient;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED), settings: { activityLogPageSize: 2 } });
  monitor = new MonitorClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
  sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
});
afterAll(() => t.close());

/** A TDE write, and the wait for its scan to end (the next write of that database would be refused until then, as in Azure). */
async function write(database: string, status: "Enabled" | "Disabled"): Promise<void> {
  await sql.putTransparentDataEncryption(ref(database), status);
  for (let i = 0; (await sql.listTransparentDataEncryptionActivities(ref(database))).length > 0; i++) {
    if (i > 400) throw new Error(`the scan of ${database} did not end`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("the Activity Log and the change feed", () => {
  it("lists a window page by page through nextLink, filtered by provider, and the feed hands on each Succeeded write once", async () => {
    const start = Date.now() - 1000;
    await write("a", "Disabled");
    await write("b", "Disabled");
    await write("a", "Enabled");

    const pages: number[] = [];
    const q = { subscriptionId: SUB, from: new Date(start), to: new Date(Date.now() + 1000), resourceProvider: "Microsoft.Sql" };
    for await (const page of monitor.activityLog(q)) pages.push(page.length);
    expect(pages).toEqual([2, 2, 2]); // Started and Succeeded of three writes, two a page
    const none = { ...q, resourceProvider: "Microsoft.KeyVault" };
    for await (const page of monitor.activityLog(none)) expect(page).toEqual([]);

    const queue = new ChangeQueue(10);
    let wakes = 0;
    const feed = new ChangeFeed({ clients: { monitor }, subscriptions: () => [SUB, SUB.toUpperCase()] });
    feed.subscribe(queue, () => wakes++);
    const first = await feed.pull();
    expect(first).toMatchObject({ read: 6, accepted: 3, failed: [] });
    expect(wakes).toBe(1);
    const batch = queue.take();
    expect([...batch.changes.keys()].sort()).toEqual([tdeId("a").toLowerCase(), tdeId("b").toLowerCase()]);
    expect(batch.changes.get(tdeId("a").toLowerCase())).toMatchObject({
      operation: "Microsoft.Sql/servers/databases/transparentDataEncryption/write",
      source: "activity-log",
      caller: expect.stringMatching(/./),
    });

    // The next window overlaps this one by five minutes: the same entries again, dropped by their ids.
    const second = await feed.pull();
    expect(second).toMatchObject({ read: 6, accepted: 0 });
    expect(queue.waiting).toBe(false);
    await write("b", "Enabled");
    expect(await feed.pull()).toMatchObject({ accepted: 1 });
  });

  it("one write seen through both sources (its Activity Log entry pulled, its Event Grid event pushed) is one change", async () => {
    const start = Date.now() - 1000;
    await write("a", "Disabled");
    const q = { subscriptionId: SUB, from: new Date(start), to: new Date(Date.now() + 1000), resourceProvider: "Microsoft.Sql" };
    const entries = [];
    for await (const page of monitor.activityLog(q)) entries.push(...page);
    const succeeded = entries.find((e) => e.status?.value === "Succeeded" && e.resourceId?.toLowerCase() === tdeId("a").toLowerCase());
    expect(succeeded?.correlationId).toMatch(/./);

    const queue = new ChangeQueue(10);
    const verdicts: string[] = [];
    const feed = new ChangeFeed({
      clients: { monitor },
      subscriptions: () => [SUB],
      counted: (r, result) => {
        if (r.attribution.correlationId === succeeded!.correlationId) verdicts.push(`${r.attribution.source} ${result}`);
      },
    });
    feed.subscribe(queue, () => {});
    // The same write, as Event Grid's subscription topic delivers it (its own event id, the write's correlation id).
    const delivery = readEventGridDelivery([
      {
        id: "5f0b7e0c-0000-4000-8000-00000000e001",
        eventType: "Microsoft.Resources.ResourceWriteSuccess",
        subject: tdeId("a"),
        eventTime: new Date().toISOString(),
        topic: `/subscriptions/${SUB}`,
        dataVersion: "",
        metadataVersion: "1",
        data: {
          resourceUri: tdeId("a"),
          operationName: "Microsoft.Sql/servers/databases/transparentDataEncryption/write",
          status: "Succeeded",
          correlationId: succeeded!.correlationId,
          claims: succeeded!.claims,
        },
      },
    ]);
    expect(feed.accept(delivery.records)).toBe(1);
    await feed.pull();
    expect(verdicts).toEqual(["event-grid new", "activity-log duplicate"]);
    expect(queue.take().changes.get(tdeId("a").toLowerCase())).toMatchObject({ source: "event-grid" });
  });

  it("a pushed event that names another caller than the Activity Log's record of the same write is corrected by the log", async () => {
    const start = Date.now() - 1000;
    await write("b", "Disabled");
    const q = { subscriptionId: SUB, from: new Date(start), to: new Date(Date.now() + 1000), resourceProvider: "Microsoft.Sql" };
    const entries = [];
    for await (const page of monitor.activityLog(q)) entries.push(...page);
    const succeeded = entries.find((e) => e.status?.value === "Succeeded" && e.resourceId?.toLowerCase() === tdeId("b").toLowerCase());
    expect(succeeded?.caller).toMatch(/./);

    const queue = new ChangeQueue(10);
    const results: string[] = [];
    const feed = new ChangeFeed({
      clients: { monitor },
      subscriptions: () => [SUB],
      counted: (r, result) => results.push(`${r.attribution.source} ${result}`),
    });
    feed.subscribe(queue, () => {});
    // A forged push of the same write (its correlation id), later, naming someone else.
    const forged = readEventGridDelivery([
      {
        id: "5f0b7e0c-0000-4000-8000-00000000e0ff",
        eventType: "Microsoft.Resources.ResourceWriteSuccess",
        subject: tdeId("b"),
        eventTime: new Date(Date.now() + 60_000).toISOString(),
        topic: `/subscriptions/${SUB}`,
        dataVersion: "",
        metadataVersion: "1",
        data: {
          resourceUri: tdeId("b"),
          operationName: "Microsoft.Sql/servers/databases/transparentDataEncryption/write",
          status: "Succeeded",
          correlationId: succeeded!.correlationId,
          claims: { "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn": "mallory@evil.example" },
        },
      },
    ]);
    expect(feed.accept(forged.records)).toBe(1);
    expect(queue.take().changes.get(tdeId("b").toLowerCase())).toMatchObject({ caller: "mallory@evil.example", source: "event-grid" });
    expect(feed.accept(forged.records)).toBe(0); // retried: a duplicate
    // The pull brings the log's record of the write: handed on, and it names the real caller.
    await feed.pull();
    expect(results.filter((r) => r.endsWith("correction"))).toEqual(["activity-log correction"]);
    expect(queue.take().changes.get(tdeId("b").toLowerCase())).toMatchObject({ caller: succeeded!.caller, source: "activity-log" });
    await write("b", "Enabled");
  });

  it("pushed records of subscriptions or providers no stack depends on are dropped before the queues and counted", () => {
    const FOREIGN = "11111111-1111-1111-1111-111111111111";
    const queue = new ChangeQueue(1_000);
    const results = new Map<string, number>();
    const feed = new ChangeFeed({
      clients: { monitor },
      subscriptions: () => [SUB],
      counted: (_r, result) => results.set(result, (results.get(result) ?? 0) + 1),
    });
    let wakes = 0;
    feed.subscribe(queue, () => wakes++);
    const storageWrite = (i: number, sub: string) => ({
      id: `0000${i}-0000-4000-8000-000000000000`,
      eventType: "Microsoft.Resources.ResourceWriteSuccess",
      subject: `/subscriptions/${sub}/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/st${i}`,
      eventTime: new Date().toISOString(),
      topic: `/subscriptions/${sub}`,
      dataVersion: "",
      metadataVersion: "1",
      data: {
        resourceUri: `/subscriptions/${sub}/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/st${i}`,
        status: "Succeeded",
      },
    });
    // 1,200 storage writes in a subscription no stack uses, and 100 in the stack's own subscription.
    const delivery = readEventGridDelivery([
      ...Array.from({ length: 1_200 }, (_, i) => storageWrite(i, FOREIGN)),
      ...Array.from({ length: 100 }, (_, i) => storageWrite(2_000 + i, SUB)),
    ]);
    expect(feed.accept(delivery.records)).toBe(0);
    expect(results.get("out-of-scope")).toBe(1_300);
    expect(queue.waiting).toBe(false);
    expect(wakes).toBe(0);

    // Changes in scope past the queue's capacity still ask for a sweep.
    const small = new ChangeQueue(5);
    feed.subscribe(small, () => {});
    const sqlWrites = readEventGridDelivery(
      Array.from({ length: 6 }, (_, i) => ({
        ...storageWrite(3_000 + i, SUB),
        subject: tdeId(`db${i}`),
        data: { resourceUri: tdeId(`db${i}`), status: "Succeeded" },
      })),
    );
    expect(feed.accept(sqlWrites.records)).toBe(6);
    expect(small.take().overflowed).toBe(true);
  });

  it("a subscription whose Activity Log cannot be read is reported, and read from the same start next time", async () => {
    const nowhere = new MonitorClient({ endpoint: "http://127.0.0.1:9", credential: t.credential, retry: { maxAttempts: 1 } });
    const feed = new ChangeFeed({ clients: { monitor: nowhere }, subscriptions: () => [SUB] });
    const r = await feed.pull();
    expect(r.accepted).toBe(0);
    expect(r.failed).toEqual([{ subscriptionId: SUB, error: expect.stringMatching(/127\.0\.0\.1:9/) }]);
  });
});
