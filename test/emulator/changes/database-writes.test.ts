import { EventGridDeserializer } from "@azure/eventgrid";
import { afterEach, describe, expect, it } from "vitest";
import type { ActivityLogEventData } from "../../../src/emulator/changes/activity-log-entry";
import type { TestEmulator } from "../../helpers/emulator";
import { arm, SERVER_ID, startChangesEmulator, SUB } from "./changes-kit";
import { WebhookReceiver } from "./webhook-receiver";

/**
 * Issue 42 item 5 (the emulator's part): databases created and deleted at run time through the
 * emulator's Resource Manager (Databases_CreateOrUpdate, Databases_Delete), listed and read like
 * seeded ones, and recorded as every ARM write is: Started and Succeeded in the Activity Log, and a
 * ResourceWriteSuccess / ResourceDeleteSuccess delivered by Event Grid.
 */
const DB_PATH = `${SERVER_ID}/databases/ledger`;

let t: TestEmulator | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await t?.close();
  await receiver?.close();
  t = receiver = undefined;
});

const names = async (te: TestEmulator) =>
  ((await arm(te, "GET", `${SERVER_ID}/databases`)).body as { value: { name: string }[] }).value.map((d) => d.name);

async function activity(te: TestEmulator, from: number): Promise<ActivityLogEventData[]> {
  const filter = `eventTimestamp ge '${new Date(from).toISOString()}' and eventTimestamp le '${new Date(Date.now() + 1000).toISOString()}'`;
  const q = new URLSearchParams({ "api-version": "2015-04-01", $filter: filter });
  const res = await arm(te, "GET", `/subscriptions/${SUB}/providers/Microsoft.Insights/eventtypes/management/values?${q.toString()}`);
  return (res.body as { value: ActivityLogEventData[] }).value;
}

describe("databases created and deleted at run time", () => {
  it("a PUT creates one (TDE Enabled, as Azure does), listed and read like a seeded one; a DELETE removes it", async () => {
    t = await startChangesEmulator();
    const created = await arm(t, "PUT", DB_PATH, { location: "East US", tags: { team: "payments" }, sku: { name: "S1" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: "ledger", tags: { team: "payments" }, properties: { serviceLevelObjective: "S1" } });
    expect(await names(t)).toContain("ledger");
    const tde = await arm(t, "GET", `${DB_PATH}/transparentDataEncryption/current`);
    expect(tde.body).toMatchObject({ properties: { status: "Enabled" } });
    // Again: an update of the same database.
    expect((await arm(t, "PUT", DB_PATH, { location: "East US", tags: { team: "risk" } })).status).toBe(200);
    expect((await arm(t, "GET", DB_PATH)).body).toMatchObject({ tags: { team: "risk" } });

    expect((await arm(t, "DELETE", DB_PATH)).status).toBe(200);
    expect(await names(t)).not.toContain("ledger");
    expect((await arm(t, "GET", DB_PATH)).status).toBe(404);
    expect((await arm(t, "DELETE", DB_PATH)).status).toBe(204);
  });

  it("refuses master, a body without a location and an unknown service objective, creating nothing", async () => {
    t = await startChangesEmulator();
    const refused = [
      await arm(t, "PUT", `${SERVER_ID}/databases/master`, { location: "East US" }),
      await arm(t, "PUT", DB_PATH, { tags: {} }),
      await arm(t, "PUT", DB_PATH, { location: "East US", sku: { name: "Z9" } }),
      await arm(t, "DELETE", `${SERVER_ID}/databases/master`),
    ];
    expect(refused.map((r) => [r.status, (r.body as { error?: { code: string } }).error?.code])).toEqual([
      [400, "InvalidDatabaseOperation"],
      [400, "InvalidRequestContent"],
      [400, "InvalidSkuName"],
      [400, "InvalidDatabaseOperation"],
    ]);
    expect(await names(t)).toEqual(["master", "orders", "customers"]);
  });

  it("records the create and the delete in the Activity Log and delivers them by Event Grid", async () => {
    receiver = await new WebhookReceiver().start();
    t = await startChangesEmulator({ settings: { eventGridRetryTimeScale: 0.001 } });
    const res = await fetch(`${t.url}/_emulator/event-subscriptions/watch`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpointUrl: receiver.url }),
    });
    expect(res.status).toBe(200);
    const from = Date.now() - 1000;
    await arm(t, "PUT", DB_PATH, { location: "East US" });
    await arm(t, "DELETE", DB_PATH);

    const entries = await activity(t, from);
    expect(
      entries
        .map((e) => [e.operationName.value, e.status.value, e.resourceId])
        .filter(([op]) => op.startsWith("Microsoft.Sql/servers/databases/")),
    ).toEqual(
      expect.arrayContaining([
        ["Microsoft.Sql/servers/databases/write", "Started", DB_PATH],
        ["Microsoft.Sql/servers/databases/write", "Succeeded", DB_PATH],
        ["Microsoft.Sql/servers/databases/delete", "Started", DB_PATH],
        ["Microsoft.Sql/servers/databases/delete", "Succeeded", DB_PATH],
      ]),
    );

    const deliveries = await receiver.waitForNotifications(2);
    const events = (await Promise.all(deliveries.map((d) => new EventGridDeserializer().deserializeEventGridEvents(d.body)))).flat();
    expect(events.map((e) => [e.eventType, e.subject])).toEqual([
      ["Microsoft.Resources.ResourceWriteSuccess", DB_PATH],
      ["Microsoft.Resources.ResourceDeleteSuccess", DB_PATH],
    ]);
  });
});
