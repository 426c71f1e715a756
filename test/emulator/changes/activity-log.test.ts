import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MonitorClient, type EventData } from "@azure/arm-monitor";
import { afterEach, describe, expect, it } from "vitest";
import type { ActivityLogEventData } from "../../../src/emulator/changes/activity-log-entry";
import { PROJECT_ROOT } from "../../../src/platform/version";
import type { TestEmulator } from "../../helpers/emulator";
import { arm, ARM_SCOPE, putTde, userAuthorization, SERVER_ID, specDefinition, startChangesEmulator, SUB, tdePath } from "./changes-kit";

/**
 * The emulator records every ARM write it serves in its Activity Log, as Azure does, and serves it
 * at ActivityLogs_List (specs/monitor/Microsoft.Insights/stable/2015-04-01/activityLogs_API.json):
 * read here by Azure's own client, @azure/arm-monitor.
 */

const SPEC = "monitor/Microsoft.Insights/stable/2015-04-01/activityLogs_API.json";
const validEventData = specDefinition(SPEC, "EventData");
const EVENT_DATA_PROPERTIES = Object.keys(
  (JSON.parse(readFileSync(join(PROJECT_ROOT, "specs", SPEC), "utf8")) as { definitions: { EventData: { properties: object } } })
    .definitions.EventData.properties,
);
const TDE_WRITE = "Microsoft.Sql/servers/databases/transparentDataEncryption/write";

let t: TestEmulator | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/**
 * Azure's client, pointed at the emulator. The emulator speaks plain http, which Azure's bearer
 * token policy refuses outright; so that one policy is swapped for one that sets the same header
 * with a token from the emulator's IMDS. Everything else (paging, deserialization) is the SDK's.
 */
function monitor(te: TestEmulator): MonitorClient {
  const credential = {
    getToken: async (scopes: string | string[]) => {
      const token = await te.credential.getToken(scopes);
      return { token: token.token, expiresOnTimestamp: token.expiresOnTimestamp };
    },
  };
  const client = new MonitorClient(credential, SUB, { endpoint: te.url, allowInsecureConnection: true });
  client.pipeline.removePolicy({ name: "bearerTokenAuthenticationPolicy" });
  client.pipeline.addPolicy({
    name: "emulatorBearerToken",
    sendRequest: async (request, next) => {
      request.headers.set("authorization", `Bearer ${(await credential.getToken(ARM_SCOPE)).token}`);
      return next(request);
    },
  });
  return client;
}

function windowFilter(fromMs: number, toMs: number, extra = ""): string {
  return `eventTimestamp ge '${new Date(fromMs).toISOString()}' and eventTimestamp le '${new Date(toMs).toISOString()}'${extra}`;
}

async function listAll(te: TestEmulator, filter: string): Promise<EventData[]> {
  const out: EventData[] = [];
  for await (const e of monitor(te).activityLogs.list(filter)) out.push(e);
  return out;
}

/** The emulator's raw answer, for what the SDK's model drops or converts (dates, unknown fields). */
async function rawList(
  te: TestEmulator,
  filter: string,
): Promise<{ status: number; body: { value?: ActivityLogEventData[]; code?: string } }> {
  const q = new URLSearchParams({ "api-version": "2015-04-01", $filter: filter });
  const res = await arm(te, "GET", `/subscriptions/${SUB}/providers/Microsoft.Insights/eventtypes/management/values?${q.toString()}`);
  return res as { status: number; body: { value?: ActivityLogEventData[]; code?: string } };
}

describe("the emulator's Activity Log", () => {
  it("records a TDE PUT as Started then Succeeded, with the caller, operation, correlation id and resource, as Azure writes them", async () => {
    t = await startChangesEmulator();
    const from = Date.now() - 1000;
    const res = await putTde(t, "orders", "Enabled", { "x-ms-correlation-request-id": "corr-1", "x-ms-client-request-id": "client-1" });
    expect(res.status).toBe(200);
    const entries = await listAll(t, windowFilter(from, Date.now() + 1000));
    expect(entries.map((e) => e.status?.value)).toEqual(["Succeeded", "Started"]); // newest first
    const clientId = (await t.credential.getToken("https://management.azure.com/.default"))!.token.split(".")[1];
    const appid = (JSON.parse(Buffer.from(clientId, "base64url").toString("utf8")) as { appid: string }).appid;
    for (const e of entries) {
      expect(e).toMatchObject({
        caller: appid,
        correlationId: "corr-1",
        category: { value: "Administrative" },
        level: "Informational",
        operationName: { value: TDE_WRITE, localizedValue: TDE_WRITE },
        resourceId: tdePath("orders"),
        resourceGroupName: "rg-data",
        resourceProviderName: { value: "Microsoft.Sql" },
        resourceType: { value: "Microsoft.Sql/servers/databases/transparentDataEncryption" },
        subscriptionId: SUB,
        httpRequest: { clientRequestId: "client-1", method: "PUT" },
      });
      expect(e.claims?.appid).toBe(appid);
      expect(e.eventTimestamp).toBeInstanceOf(Date);
    }
    expect(entries[0].operationId).toBe(entries[1].operationId);
    expect(entries[0].eventDataId).not.toBe(entries[1].eventDataId);
    expect(entries[0].subStatus).toEqual({ value: "OK", localizedValue: "OK (HTTP Status Code: 200)" });
  });

  it("names a user's write by its UPN: a token from the admin route user-token, as someone in the portal", async () => {
    t = await startChangesEmulator();
    const from = Date.now() - 1000;
    const res = await putTde(t, "orders", "Disabled", await userAuthorization(t, "alice@contoso.com", "Alice Example"));
    expect(res.status).toBe(200);
    const entries = await listAll(t, windowFilter(from, Date.now() + 1000, " and caller eq 'alice@contoso.com'"));
    expect(entries).toHaveLength(2);
    for (const e of entries) {
      expect(e.caller).toBe("alice@contoso.com");
      expect(e.claims).toMatchObject({
        "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn": "alice@contoso.com",
        name: "Alice Example",
        appid: "c44b4083-3bb0-49c1-b47d-974e53cbdf3c",
      });
    }
    const bad = await fetch(`${t.url}/_emulator/user-token`, { method: "POST", body: JSON.stringify({ upn: "alice" }) });
    expect(bad.status).toBe(400);
  });

  it("records a refused write as Failed at level Error with the error, and a write without a correlation id gets a new one", async () => {
    t = await startChangesEmulator();
    const from = Date.now() - 1000;
    const master = `${SERVER_ID}/databases/master/transparentDataEncryption/current`;
    expect((await arm(t, "PUT", master, { properties: { status: "Enabled" } })).status).toBe(400);
    const { body } = await rawList(t, windowFilter(from, Date.now() + 1000));
    const [failed, started] = body.value!;
    expect(started.status.value).toBe("Started");
    expect(failed).toMatchObject({ status: { value: "Failed" }, level: "Error", properties: { statusCode: "BadRequest" } });
    expect(JSON.parse(failed.properties.statusMessage)).toMatchObject({ error: { code: "OperationNotSupportedOnMasterDatabase" } });
    expect(failed.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(started.correlationId).toBe(failed.correlationId);
  });

  it("validates every entry against the spec's EventData, with no field the spec does not define", async () => {
    t = await startChangesEmulator();
    const from = Date.now() - 1000;
    await putTde(t, "orders", "Enabled");
    await arm(t, "PUT", `${SERVER_ID}/databases/master/transparentDataEncryption/current`, { properties: { status: "Enabled" } });
    const { status, body } = await rawList(t, windowFilter(from, Date.now() + 1000));
    expect(status).toBe(200);
    expect(body.value).toHaveLength(4);
    for (const e of body.value!) {
      expect(validEventData(e)).toEqual([]);
      expect(Object.keys(e).filter((k) => !EVENT_DATA_PROPERTIES.includes(k))).toEqual([]);
    }
  });

  it("filters by time window, resource, resource group, provider and correlation id, and pages through nextLink", async () => {
    t = await startChangesEmulator({ settings: { activityLogPageSize: 2 } });
    const from = Date.now() - 1000;
    await putTde(t, "orders", "Enabled", { "x-ms-correlation-request-id": "c-orders" });
    await putTde(t, "customers", "Enabled", { "x-ms-correlation-request-id": "c-customers" });
    await putTde(t, "orders", "Disabled");
    const to = Date.now() + 1000;
    const all = await listAll(t, windowFilter(from, to));
    expect(all).toHaveLength(6); // three pages of two
    expect(new Set(all.map((e) => e.eventDataId)).size).toBe(6);
    const pages: number[] = [];
    for await (const page of monitor(t).activityLogs.list(windowFilter(from, to)).byPage()) pages.push(page.length);
    expect(pages).toEqual([2, 2, 2]);

    const byResource = await listAll(t, windowFilter(from, to, ` and resourceUri eq '${tdePath("customers")}'`));
    expect(byResource.map((e) => e.correlationId)).toEqual(["c-customers", "c-customers"]);
    expect(await listAll(t, windowFilter(from, to, " and correlationId eq 'C-ORDERS'"))).toHaveLength(2);
    expect(await listAll(t, windowFilter(from, to, " and resourceGroupName eq 'RG-DATA'"))).toHaveLength(6);
    expect(await listAll(t, windowFilter(from, to, " and resourceProvider eq 'Microsoft.Sql'"))).toHaveLength(6);
    expect(await listAll(t, windowFilter(from, to, " and resourceProvider eq 'Microsoft.KeyVault'"))).toHaveLength(0);
    expect(await listAll(t, windowFilter(from - 60_000, from))).toHaveLength(0);
    expect(await listAll(t, `eventTimestamp ge '${new Date(from).toISOString()}' and status eq 'Succeeded'`)).toHaveLength(3);
  });

  it("answers 400 for a filter the spec does not allow, and $select keeps only the named fields", async () => {
    t = await startChangesEmulator();
    const from = Date.now() - 1000;
    await putTde(t, "orders", "Enabled");
    for (const bad of [
      "",
      "resourceGroupName eq 'rg-data'",
      "eventTimestamp ge 'yesterday'",
      "eventTimestamp ge '2026-01-01T00:00:00Z' or caller eq 'x'",
    ]) {
      const res = await rawList(t, bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe("BadRequest");
    }
    const entries: EventData[] = [];
    for await (const e of monitor(t).activityLogs.list(windowFilter(from, Date.now() + 1000), { select: "eventDataId,caller,status" }))
      entries.push(e);
    expect(entries).toHaveLength(2);
    // The SDK's model lists every property; the selected ones are those with a value.
    for (const e of entries) {
      const present = Object.entries(e).filter(([, v]) => v !== undefined);
      expect(present.map(([k]) => k).sort()).toEqual(["caller", "eventDataId", "status"]);
    }
  });

  it("keeps only the newest entries (a ring), and the admin route shows and clears it", async () => {
    t = await startChangesEmulator({ settings: { activityLogCapacity: 3 } });
    const from = Date.now() - 1000;
    await putTde(t, "orders", "Enabled", { "x-ms-correlation-request-id": "first" });
    await putTde(t, "customers", "Enabled", { "x-ms-correlation-request-id": "second" });
    const entries = await listAll(t, windowFilter(from, Date.now() + 1000));
    expect(entries.map((e) => `${e.correlationId} ${e.status?.value}`)).toEqual(["second Succeeded", "second Started", "first Succeeded"]);
    const admin = (await (await fetch(`${t.url}/_emulator/activity-log`)).json()) as { count: number };
    expect(admin.count).toBe(3);
    expect((await fetch(`${t.url}/_emulator/activity-log`, { method: "DELETE" })).status).toBe(204);
    expect(await listAll(t, windowFilter(from, Date.now() + 1000))).toHaveLength(0);
  });

  it("is covered by the request fault rules, like any route", async () => {
    t = await startChangesEmulator({
      faults: { rules: [{ match: `/subscriptions/${SUB}/providers/Microsoft.Insights`, status: 503, count: 1 }] },
    });
    const first = await rawList(t, windowFilter(Date.now() - 1000, Date.now()));
    expect(first.status).toBe(503);
    expect((await rawList(t, windowFilter(Date.now() - 1000, Date.now()))).status).toBe(200);
  });
});

describe("record faults on the Activity Log", () => {
  async function entriesAfter(te: TestEmulator, from: number): Promise<ActivityLogEventData[]> {
    return (await rawList(te, windowFilter(from, Date.now() + 3_600_000))).body.value!;
  }

  it("drop loses entries, duplicate lists one twice with the same eventDataId", async () => {
    t = await startChangesEmulator({ faults: { rules: [{ record: "drop", channel: "activityLog", match: tdePath("orders"), rate: 1 }] } });
    const from = Date.now() - 1000;
    await putTde(t, "orders", "Enabled");
    await putTde(t, "customers", "Enabled");
    expect((await entriesAfter(t, from)).map((e) => e.resourceId)).toEqual([tdePath("customers"), tdePath("customers")]);

    await t.close();
    t = await startChangesEmulator({ faults: { rules: [{ record: "duplicate", count: 1 }] } });
    await putTde(t, "orders", "Enabled");
    const dup = await entriesAfter(t, from);
    expect(dup.map((e) => e.status.value)).toEqual(["Succeeded", "Started", "Started"]);
    expect(dup[1].eventDataId).toBe(dup[2].eventDataId);
  });

  it("delay lists an entry only once the emulator's clock has passed its ingestion, with that submissionTimestamp", async () => {
    t = await startChangesEmulator({ faults: { rules: [{ record: "delay", delayMs: 600_000, count: 1 }] } });
    const from = Date.now() - 1000;
    await putTde(t, "orders", "Enabled");
    expect((await entriesAfter(t, from)).map((e) => e.status.value)).toEqual(["Succeeded"]);
    t.emu.advanceClock(600_000);
    const later = await entriesAfter(t, from);
    expect(later.map((e) => e.status.value)).toEqual(["Succeeded", "Started"]);
    const started = later[1];
    expect(Date.parse(started.submissionTimestamp) - Date.parse(started.eventTimestamp)).toBeGreaterThanOrEqual(600_000);
  });

  it("reorder ingests an entry after the next one", async () => {
    t = await startChangesEmulator({ faults: { rules: [{ record: "reorder", count: 1, delayMs: 60_000 }] } });
    const from = Date.now() - 1000;
    await putTde(t, "orders", "Enabled");
    // Newest ingested first: the Started entry, held back, came in after the Succeeded one.
    expect((await entriesAfter(t, from)).map((e) => e.status.value)).toEqual(["Started", "Succeeded"]);
  });
});
