import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { ChangeRecord } from "../../../../src/domain/changes/change-record";
import { AzureEventsRoute } from "../../../../src/interfaces/watch/server/azure-events-route";

const SUB = "00000000-0000-0000-0000-000000000000";
const TDE = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/a/transparentDataEncryption/current`;
const DELIVERY = [
  {
    id: "5f0b7e0c-0000-4000-8000-00000000e002",
    eventType: "Microsoft.Resources.ResourceWriteSuccess",
    subject: TDE,
    eventTime: "2026-11-27T10:01:00Z",
    topic: `/subscriptions/${SUB}`,
    dataVersion: "",
    metadataVersion: "1",
    data: { resourceUri: TDE, operationName: "Microsoft.Sql/servers/databases/transparentDataEncryption/write", status: "Succeeded" },
  },
];

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** The route behind a real HTTP server on loopback; `leads` says whether this replica leads. */
async function serve(leads: () => boolean, taken: ChangeRecord[]): Promise<string> {
  const route = new AzureEventsRoute({
    host: "127.0.0.1",
    accept: (records) => (leads() ? (taken.push(...records), records.length) : undefined),
    log: () => {},
  });
  server = createServer((req, res) => route.serve(req, res, new URL(req.url ?? "/", "http://x").searchParams));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/events/azure`;
}

const post = (url: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(DELIVERY) });

describe("Event Grid deliveries and leadership", () => {
  it("a standby refuses a delivery with 503 and Retry-After (Event Grid retries it), takes nothing, and the leader takes the retry", async () => {
    let leads = false;
    const taken: ChangeRecord[] = [];
    const url = await serve(() => leads, taken);
    const refused = await post(url);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(taken).toEqual([]);
    leads = true;
    const accepted = await post(url);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ accepted: 1, ignored: 0 });
    expect(taken.map((r) => r.resourceId)).toEqual([TDE]);
  });
});
