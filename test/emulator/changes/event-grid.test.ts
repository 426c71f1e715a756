import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EventGridDeserializer, isSystemEvent } from "@azure/eventgrid";
import { afterEach, describe, expect, it } from "vitest";
import type { SubscriptionView } from "../../../src/emulator/changes/event-grid/event-grid";
import type { EmulatorOptions } from "../../../src/emulator/server";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { seedFromYaml, type TestEmulator } from "../../helpers/emulator";
import { CHANGES_SEED, putTde, specDefinition, startChangesEmulator, SUB, tdePath } from "./changes-kit";
import { WebhookReceiver } from "./webhook-receiver";

/**
 * The emulator delivers Event Grid's resource events for the writes it serves to the webhook
 * subscriptions it is given, after Event Grid's validation handshake, in both delivery schemas,
 * retried on Event Grid's schedule (scaled down here), read by Azure's own deserializer.
 */

const RESOURCES_SPEC = "eventgrid/Microsoft.Resources/stable/2018-01-01/Resources.json";
const validWriteData = specDefinition(RESOURCES_SPEC, "ResourceWriteSuccessData");
const KEYVAULT_SPEC = "eventgrid/Microsoft.KeyVault/stable/2018-01-01/KeyVault.json";
const validKeyNearExpiry = specDefinition(KEYVAULT_SPEC, "KeyVaultKeyNearExpiryEventData");
const validKeyExpired = specDefinition(KEYVAULT_SPEC, "KeyVaultKeyExpiredEventData");
const validValidationData = specDefinition(
  "eventgrid/Microsoft.EventGrid/stable/2018-01-01/SystemEvents.json",
  "SubscriptionValidationEventData",
);
const example = (schema: string) =>
  JSON.parse(
    readFileSync(
      join(PROJECT_ROOT, "specs/eventgrid/Microsoft.Resources/stable/2018-01-01/examples", schema, "resource_write_success.json"),
      "utf8",
    ),
  ) as Record<string, unknown>;
const WRITE_SUCCESS = "Microsoft.Resources.ResourceWriteSuccess";
/** 10 s of Event Grid's schedule is 10 ms here. */
const FAST: EmulatorOptions["settings"] = { eventGridRetryTimeScale: 0.001 };

let t: TestEmulator | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await t?.close();
  await receiver?.close();
  t = receiver = undefined;
});

async function subscribe(te: TestEmulator, name: string, body: Record<string, unknown>): Promise<SubscriptionView> {
  const res = await fetch(`${te.url}/_emulator/event-subscriptions/${name}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as SubscriptionView;
}

async function views(te: TestEmulator): Promise<SubscriptionView[]> {
  return ((await (await fetch(`${te.url}/_emulator/event-subscriptions`)).json()) as { value: SubscriptionView[] }).value;
}

/** Waits until the subscription has given up or delivered `n` events (the admin view). */
async function settled(te: TestEmulator, n: number): Promise<SubscriptionView> {
  for (let i = 0; i < 200; i++) {
    const [v] = await views(te);
    if (v.delivered + v.failed + v.dropped >= n && v.pending === 0) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the subscription did not settle: ${JSON.stringify(await views(te))}`);
}

async function setup(opts: EmulatorOptions = {}): Promise<{ te: TestEmulator; rx: WebhookReceiver }> {
  receiver = await new WebhookReceiver().start();
  t = await startChangesEmulator({ settings: FAST, ...opts });
  return { te: t, rx: receiver };
}

describe("Event Grid deliveries in the Event Grid schema", () => {
  it("validates by the handshake, then delivers ResourceWriteSuccess as the published example shows it, parsed by @azure/eventgrid", async () => {
    const { te, rx } = await setup();
    const view = await subscribe(te, "drift-watch", { endpointUrl: rx.url });
    expect(view).toMatchObject({
      validated: true,
      eventDeliverySchema: "EventGridSchema",
      maxDeliveryAttempts: 30,
      eventTimeToLiveInMinutes: 1440,
    });
    const handshake = rx.received[0];
    expect(handshake.headers["aeg-event-type"]).toBe("SubscriptionValidation");
    const [validation] = await new EventGridDeserializer().deserializeEventGridEvents(handshake.body);
    expect(isSystemEvent("Microsoft.EventGrid.SubscriptionValidationEvent", validation)).toBe(true);
    expect(validValidationData(validation.data)).toEqual([]);
    expect(validation.data).toEqual({
      validationCode: expect.any(String),
      validationUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/_emulator\//),
    });

    await putTde(te, "orders", "Enabled", { "x-ms-correlation-request-id": "corr-eg" });
    const [delivery] = await rx.waitForNotifications(1);
    expect(delivery.headers["content-type"]).toBe("application/json");
    expect(delivery.headers["aeg-delivery-count"]).toBe("0");
    const raw = JSON.parse(delivery.body) as Record<string, unknown>[];
    expect(raw).toHaveLength(1);
    expect(Object.keys(raw[0]).sort()).toEqual(Object.keys(example("event-grid-schema")).sort());
    const [event] = await new EventGridDeserializer().deserializeEventGridEvents(delivery.body);
    expect(isSystemEvent(WRITE_SUCCESS, event)).toBe(true);
    expect(event).toMatchObject({
      eventType: WRITE_SUCCESS,
      subject: tdePath("orders"),
      topic: `/subscriptions/${SUB}`,
      dataVersion: "2",
      metadataVersion: "1",
    });
    const data = event.data as Record<string, unknown>;
    expect(validWriteData(data)).toEqual([]);
    expect(data).toMatchObject({
      correlationId: "corr-eg",
      operationName: "Microsoft.Sql/servers/databases/transparentDataEncryption/write",
      resourceProvider: "Microsoft.Sql",
      resourceUri: tdePath("orders"),
      status: "Succeeded",
      subscriptionId: SUB,
      authorization: { action: "Microsoft.Sql/servers/databases/transparentDataEncryption/write", scope: tdePath("orders") },
      httpRequest: { method: "PUT" },
    });
    expect((data.claims as Record<string, string>).appid).toEqual(expect.any(String));
    expect((await settled(te, 1)).delivered).toBe(1);
  });

  it("leaves a subscription whose endpoint refuses the handshake unvalidated, delivers nothing to it, and its validationUrl validates it", async () => {
    const { te, rx } = await setup();
    rx.behaviour.validation = "no-code";
    const view = await subscribe(te, "no-echo", { endpointUrl: rx.url });
    expect(view.validated).toBe(false);
    expect(view.validationError).toMatch(/validationCode/);
    await putTde(te, "orders", "Enabled");
    const after = await settled(te, 1);
    expect(after).toMatchObject({ delivered: 0, failed: 1 });
    expect(rx.notifications).toHaveLength(0);

    const validationUrl = (JSON.parse(rx.received[0].body) as { data: { validationUrl: string } }[])[0].data.validationUrl;
    expect((await fetch(validationUrl)).status).toBe(200);
    await putTde(te, "orders", "Disabled");
    await rx.waitForNotifications(1);

    rx.behaviour.validation = 403;
    expect((await subscribe(te, "refused", { endpointUrl: rx.url })).validationError).toMatch(/HTTP 403/);
  });

  it("retries after a 500 on the schedule, and not after a 400", async () => {
    const { te, rx } = await setup();
    await subscribe(te, "flaky", { endpointUrl: rx.url });
    rx.behaviour.statuses = [500, 503];
    await putTde(te, "orders", "Enabled");
    const deliveries = await rx.waitForNotifications(3);
    expect(deliveries.map((d) => d.headers["aeg-delivery-count"])).toEqual(["0", "1", "2"]);
    // 10 s then 30 s, scaled by 0.001.
    expect(deliveries[1].at - deliveries[0].at).toBeGreaterThanOrEqual(9);
    expect(deliveries[2].at - deliveries[1].at).toBeGreaterThanOrEqual(29);
    expect(await settled(te, 1)).toMatchObject({ delivered: 1, failed: 0 });

    rx.behaviour.statuses = [400];
    await putTde(te, "customers", "Enabled");
    await rx.waitForNotifications(4);
    const v = await settled(te, 2);
    expect(v).toMatchObject({ delivered: 1, failed: 1 });
    expect(v.attempts.at(-1)).toMatchObject({ status: 400, attempt: 1 });
    expect(rx.notifications).toHaveLength(4);
  });

  it("gives up after maxDeliveryAttempts", async () => {
    const { te, rx } = await setup();
    await subscribe(te, "down", { endpointUrl: rx.url, maxDeliveryAttempts: 3 });
    rx.behaviour.statuses = [503, 503, 503, 503];
    await putTde(te, "orders", "Enabled");
    await rx.waitForNotifications(3);
    expect(await settled(te, 1)).toMatchObject({ delivered: 0, failed: 1 });
    expect(rx.notifications).toHaveLength(3);
  });

  it("filters by event type and subject, and never delays the write's answer", async () => {
    const { te, rx } = await setup();
    await subscribe(te, "customers-only", {
      endpointUrl: rx.url,
      subjectEndsWith: "/databases/customers/transparentDataEncryption/current",
    });
    await subscribe(te, "deletes-only", { endpointUrl: rx.url, includedEventTypes: ["Microsoft.Resources.ResourceDeleteSuccess"] });
    rx.behaviour.statuses = [];
    await putTde(te, "orders", "Enabled");
    const started = Date.now();
    await putTde(te, "customers", "Enabled");
    expect(Date.now() - started).toBeLessThan(2000);
    const [only] = await rx.waitForNotifications(1);
    expect((JSON.parse(only.body) as { subject: string }[])[0].subject).toBe(tdePath("customers"));
    expect(only.headers["aeg-subscription-name"]).toBe("CUSTOMERS-ONLY");
  });

  it("subscribes the seed's subscriptions when it starts", async () => {
    receiver = await new WebhookReceiver().start();
    const seed = seedFromYaml(`${CHANGES_SEED}
eventGrid:
  subscriptions:
    - name: seeded
      endpointUrl: ${receiver.url}
      eventDeliverySchema: CloudEventSchemaV1_0
emulator:
  eventGridRetryTimeScale: 0.001
`);
    t = await startChangesEmulator({ seed });
    await putTde(t, "orders", "Enabled");
    const [d] = await receiver.waitForNotifications(1);
    expect(receiver.received[0].method).toBe("OPTIONS");
    expect(JSON.parse(d.body)).toMatchObject({ type: WRITE_SUCCESS, specversion: "1.0" });
  });
});

describe("Event Grid deliveries in the CloudEvents 1.0 schema", () => {
  it("validates by the OPTIONS handshake, then delivers structured CloudEvents, parsed by @azure/eventgrid", async () => {
    const { te, rx } = await setup();
    const view = await subscribe(te, "cloud", { endpointUrl: rx.url, eventDeliverySchema: "CloudEventSchemaV1_0" });
    expect(view.validated).toBe(true);
    expect(rx.received[0]).toMatchObject({ method: "OPTIONS", headers: { "webhook-request-origin": "eventgrid.azure.net" } });
    await putTde(te, "orders", "Enabled");
    const [delivery] = await rx.waitForNotifications(1);
    expect(delivery.headers["content-type"]).toMatch(/^application\/cloudevents\+json/);
    expect(Object.keys(JSON.parse(delivery.body) as object).sort()).toEqual(Object.keys(example("cloud-events-schema")).sort());
    const [event] = await new EventGridDeserializer().deserializeCloudEvents(delivery.body);
    expect(isSystemEvent(WRITE_SUCCESS, event)).toBe(true);
    expect(event).toMatchObject({ type: WRITE_SUCCESS, source: `/subscriptions/${SUB}`, subject: tdePath("orders"), specversion: "1.0" });
    expect(validWriteData(event.data)).toEqual([]);
  });

  it("leaves the subscription unvalidated when WebHook-Allowed-Origin is missing or wrong", async () => {
    const { te, rx } = await setup();
    rx.behaviour.allowedOrigin = "example.com";
    const view = await subscribe(te, "cloud-bad", { endpointUrl: rx.url, eventDeliverySchema: "CloudEventSchemaV1_0" });
    expect(view).toMatchObject({ validated: false, validationError: expect.stringMatching(/WebHook-Allowed-Origin/) });
  });
});

describe("record faults on Event Grid deliveries", () => {
  it("drop loses a delivery, duplicate sends one twice with the same id", async () => {
    const { te, rx } = await setup({
      faults: {
        rules: [
          { record: "drop", channel: "eventGrid", count: 1 },
          { record: "duplicate", channel: "eventGrid", count: 1 },
        ],
      },
    });
    await subscribe(te, "faulty", { endpointUrl: rx.url });
    await putTde(te, "orders", "Enabled"); // dropped
    await putTde(te, "customers", "Enabled"); // duplicated
    const ds = await rx.waitForNotifications(2);
    const events = ds.map((d) => (JSON.parse(d.body) as { id: string; subject: string }[])[0]);
    expect(events.map((e) => e.subject)).toEqual([tdePath("customers"), tdePath("customers")]);
    expect(events[0].id).toBe(events[1].id);
    expect(await settled(te, 3)).toMatchObject({ dropped: 1, delivered: 2 });
  });

  it("delay sends a delivery late; reorder sends it after the next one", async () => {
    const { te, rx } = await setup({ faults: { rules: [{ record: "reorder", channel: "eventGrid", count: 1, delayMs: 60_000 }] } });
    await subscribe(te, "reordered", { endpointUrl: rx.url });
    await putTde(te, "orders", "Enabled");
    await putTde(te, "customers", "Enabled");
    const ds = await rx.waitForNotifications(2);
    expect(ds.map((d) => (JSON.parse(d.body) as { subject: string }[])[0].subject)).toEqual([tdePath("customers"), tdePath("orders")]);

    await te.close();
    t = await startChangesEmulator({
      settings: FAST,
      faults: { rules: [{ record: "delay", channel: "eventGrid", count: 1, delayMs: 300 }] },
    });
    await subscribe(t, "delayed", { endpointUrl: rx.url });
    const written = Date.now();
    await putTde(t, "orders", "Disabled");
    const [, , late] = await rx.waitForNotifications(3);
    expect(late.at - written).toBeGreaterThanOrEqual(290);
  });
});

describe("Key Vault events", () => {
  it("publishes KeyNearExpiry 30 days before a key's expiry and KeyExpired at it, on the vault's topic, once each", async () => {
    receiver = await new WebhookReceiver().start();
    const seed = seedFromYaml(`${CHANGES_SEED}
keyvault:
  subscriptionId: ${SUB}
  vaults:
    - name: kv-1
      resourceGroup: rg-security
      keys:
        - name: tde-key
          kty: RSA
          keySize: 2048
          version: 6f1c2e4a9b8d4c3e8a7f5b2d1c0e9f8a
          activationDate: now-1d
          expirationDate: now+40d
`);
    t = await startChangesEmulator({ seed, settings: FAST });
    const vaultId = `/subscriptions/${SUB}/resourceGroups/rg-security/providers/Microsoft.KeyVault/vaults/kv-1`;
    await subscribe(t, "keys", { endpointUrl: receiver.url, topic: vaultId });
    const day = 24 * 3600 * 1000;
    t.emu.advanceClock(11 * day);
    const [near] = await receiver.waitForNotifications(1);
    t.emu.advanceClock(30 * day);
    const [, expired] = await receiver.waitForNotifications(2);
    const [nearEvent] = await new EventGridDeserializer().deserializeEventGridEvents(near.body);
    const [expiredEvent] = await new EventGridDeserializer().deserializeEventGridEvents(expired.body);
    expect(isSystemEvent("Microsoft.KeyVault.KeyNearExpiry", nearEvent)).toBe(true);
    expect(isSystemEvent("Microsoft.KeyVault.KeyExpired", expiredEvent)).toBe(true);
    const version = "6f1c2e4a9b8d4c3e8a7f5b2d1c0e9f8a";
    expect(nearEvent).toMatchObject({ topic: vaultId, subject: "tde-key", dataVersion: "1", metadataVersion: "1" });
    expect(nearEvent.data).toMatchObject({
      Id: `https://kv-1.vault.azure.net/keys/tde-key/${version}`,
      VaultName: "kv-1",
      ObjectType: "Key",
      ObjectName: "tde-key",
      Version: version,
      EXP: expect.any(Number),
    });
    expect(validKeyNearExpiry(nearEvent.data)).toEqual([]);
    expect(validKeyExpired(expiredEvent.data)).toEqual([]);
    // Once each: a later sweep gives nothing new, and the write events of the subscription topic do not reach a vault's subscription.
    await putTde(t, "orders", "Enabled");
    await new Promise((r) => setTimeout(r, 1200));
    expect(receiver.notifications).toHaveLength(2);
  });
});
