import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { changeOfActivityLogEntry } from "../../../src/domain/changes/activity-log-changes";
import { ChangeQueue } from "../../../src/domain/changes/change-queue";
import { readEventGridDelivery, SUBSCRIPTION_VALIDATION_EVENT } from "../../../src/domain/changes/event-grid-changes";
import { SeenIds } from "../../../src/domain/changes/seen-ids";
import type { ChangeRecord } from "../../../src/domain/changes/change-record";
import type { EventData } from "../../../src/services/monitor/types";

// The published examples (../shared/specs, SOURCES.md there says where each came from).
const SPECS = "/work/shared/specs";
const example = (path: string): unknown => JSON.parse(readFileSync(`${SPECS}/${path}`, "utf8"));
const RESOURCES = "eventgrid/Microsoft.Resources/stable/2018-01-01/examples";

describe("Activity Log entries", () => {
  const activityLog = example("monitor/Microsoft.Insights/stable/2015-04-01/examples/GetActivityLogsFiltered.json") as {
    responses: { 200: { body: { value: EventData[] } } };
  };
  const published = activityLog.responses[200].body.value[0];

  it("a Succeeded write of the published example is a change with its caller, operation, time and correlation id", () => {
    const r = changeOfActivityLogEntry(published)!;
    expect(r).toBeDefined();
    expect(r.id).toBe(`activity-log:${published.eventDataId}`);
    // The example has no `resourceId`: its `id` names the resource, then `/events/{eventDataId}/ticks/{ticks}`.
    expect(r.resourceId).toBe(
      "/subscriptions/089bd33f-d4ec-47fe-8ba5-0753aa5c5b33/resourceGroups/MSSupportGroup/providers/microsoft.support/supporttickets/115012112305841",
    );
    expect(r.attribution).toEqual({
      caller: published.caller,
      at: new Date(published.eventTimestamp!).toISOString(),
      operation: published.operationName!.value,
      source: "activity-log",
      correlationId: published.correlationId,
    });
  });

  it("only Succeeded writes, deletes and actions are changes; odd entries are none, not errors", () => {
    const base = {
      ...published,
      resourceId: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Sql/servers/s1/databases/d",
      operationName: { value: "Microsoft.Sql/servers/databases/transparentDataEncryption/write" },
    };
    expect(changeOfActivityLogEntry({ ...base, status: { value: "Started" } })).toBeUndefined();
    expect(changeOfActivityLogEntry({ ...base, status: { value: "Failed" } })).toBeUndefined();
    expect(
      changeOfActivityLogEntry({ ...base, status: { value: "Succeeded" }, operationName: { value: "Microsoft.Sql/servers/read" } }),
    ).toBeUndefined();
    expect(changeOfActivityLogEntry({ ...base, status: { value: "Succeeded" }, resourceId: undefined, id: undefined })).toBeUndefined();
    expect(changeOfActivityLogEntry({ ...base, status: { value: "Succeeded" }, eventDataId: undefined })).toBeUndefined();
    expect(changeOfActivityLogEntry({} as EventData)).toBeUndefined();
    // No caller: the claims name the application.
    const byApp = changeOfActivityLogEntry({ ...base, status: { value: "Succeeded" }, caller: undefined, claims: { appid: "app-1" } });
    expect(byApp?.attribution.caller).toBe("app-1");
    const anonymous = changeOfActivityLogEntry({
      ...base,
      status: { value: "Succeeded" },
      caller: undefined,
      claims: undefined,
      correlationId: undefined,
    });
    expect(anonymous?.attribution).toMatchObject({ caller: null, correlationId: null });
  });
});

describe("Event Grid deliveries", () => {
  it("reads Resource Manager's write event in the Event Grid schema (the published example)", () => {
    const e = example(`${RESOURCES}/event-grid-schema/resource_write_success.json`) as { id: string; data: { resourceUri: string } };
    const d = readEventGridDelivery([e]);
    expect(d.ignored).toBe(0);
    expect(d.records).toEqual([
      {
        id: `event-grid:${e.id}`,
        resourceId: e.data.resourceUri,
        attribution: {
          caller: "{user-name}",
          at: "2018-07-19T18:38:04.611Z",
          operation: "Microsoft.Storage/storageAccounts/write",
          source: "event-grid",
          correlationId: "{ID}",
        },
      },
    ]);
  });

  it("reads the same event in the CloudEvents schema, one structured event or a batch", () => {
    const ce = example(`${RESOURCES}/cloud-events-schema/resource_write_success.json`) as { id: string };
    const one = readEventGridDelivery(ce);
    const batch = readEventGridDelivery([ce, example(`${RESOURCES}/cloud-events-schema/resource_delete_success.json`)]);
    expect(one.records).toHaveLength(1);
    expect(one.records[0].attribution).toMatchObject({
      caller: "{user-name}",
      operation: "Microsoft.Storage/storageAccounts/write",
      source: "event-grid",
    });
    expect(batch.records.map((r) => r.attribution.operation)).toEqual([
      "Microsoft.Storage/storageAccounts/write",
      "Microsoft.Storage/storageAccounts/delete",
    ]);
  });

  it("finds the validation code of Event Grid's handshake", () => {
    const d = readEventGridDelivery([
      {
        id: "v1",
        eventType: SUBSCRIPTION_VALIDATION_EVENT,
        eventTime: "2026-01-01T00:00:00Z",
        data: { validationCode: "512d38b6-c7b8-40c8-89fe-f46f9e9622b6" },
      },
    ]);
    expect(d.validationCode).toBe("512d38b6-c7b8-40c8-89fe-f46f9e9622b6");
    expect(d.records).toEqual([]);
  });

  it("a key event names the key of the vault its topic is; other events are ignored, not errors", () => {
    const vault = "/subscriptions/s/resourceGroups/g/providers/Microsoft.KeyVault/vaults/kv";
    const d = readEventGridDelivery([
      {
        id: "k1",
        eventType: "Microsoft.KeyVault.KeyNewVersionCreated",
        topic: vault,
        eventTime: "2026-01-01T00:00:00Z",
        data: { ObjectName: "tde" },
      },
      example("eventgrid/Microsoft.KeyVault/stable/2018-01-01/examples/event-grid-schema/secret_new_version_created.json"),
      { nothing: true },
    ]);
    expect(d.records.map((r) => r.resourceId)).toEqual([`${vault}/keys/tde`]);
    expect(d.ignored).toBe(2);
    expect(() => readEventGridDelivery("text")).toThrow(/neither an event nor an array/);
  });
});

describe("deduplication and the queue", () => {
  const record = (id: string, resourceId: string, at: string): ChangeRecord => ({
    id,
    resourceId,
    attribution: { caller: id, at, operation: "x/write", source: "activity-log", correlationId: null },
  });

  it("SeenIds drops an id seen before and forgets the oldest past its capacity", () => {
    const seen = new SeenIds(2);
    expect(seen.add("a")).toBe(true);
    expect(seen.add("a")).toBe(false);
    seen.add("b");
    seen.add("c");
    expect(seen.size).toBe(2);
    expect(seen.add("a")).toBe(true); // forgotten: a re-read again, which is idempotent
  });

  it("coalesces changes per resource, keeping the latest attribution", () => {
    const q = new ChangeQueue(10);
    q.push(record("late", "/R/A", "2026-01-01T00:00:02Z"));
    q.push(record("early", "/r/a", "2026-01-01T00:00:01Z"));
    q.push(record("b", "/r/b", "2026-01-01T00:00:01Z"));
    const batch = q.take();
    expect(batch.overflowed).toBe(false);
    expect([...batch.changes.keys()]).toEqual(["/r/a", "/r/b"]);
    expect(batch.changes.get("/r/a")?.caller).toBe("late");
    expect(q.waiting).toBe(false);
  });

  it("of one write seen through both sources, the Activity Log's attribution is kept over a later pushed one", () => {
    const q = new ChangeQueue(10);
    const logged: ChangeRecord = {
      id: "activity-log:1",
      resourceId: "/r/a",
      attribution: {
        caller: "alice@contoso.com",
        at: "2026-01-01T00:00:01Z",
        operation: "x/write",
        source: "activity-log",
        correlationId: "C-1",
      },
    };
    const forged: ChangeRecord = {
      id: "event-grid:1",
      resourceId: "/r/a",
      attribution: {
        caller: "mallory@evil.example",
        at: "2026-01-01T00:09:00Z",
        operation: "x/write",
        source: "event-grid",
        correlationId: "c-1",
      },
    };
    q.push(forged);
    q.push(logged);
    expect(q.take().changes.get("/r/a")?.caller).toBe("alice@contoso.com");
    q.push(logged);
    q.push(forged);
    expect(q.take().changes.get("/r/a")?.caller).toBe("alice@contoso.com");
    // Another write (another correlation id) that is later still wins.
    q.push(logged);
    q.push({ ...forged, attribution: { ...forged.attribution, correlationId: "c-2", caller: "bob@contoso.com" } });
    expect(q.take().changes.get("/r/a")?.caller).toBe("bob@contoso.com");
  });

  it("a storm of 10,000 changes over more resources than it holds becomes one sweep, in bounded memory", () => {
    const q = new ChangeQueue(1_000);
    for (let i = 0; i < 10_000; i++) q.push(record(`r${i}`, `/r/${i}`, "2026-01-01T00:00:00Z"));
    const batch = q.take();
    expect(batch).toMatchObject({ overflowed: true });
    expect(batch.changes.size).toBe(0);
    expect(q.waiting).toBe(false);
  });
});
