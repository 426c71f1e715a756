import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { ChangeRecord } from "../../../../src/domain/changes/change-record";
import { AzureEventsRoute, MAX_DELIVERY_BYTES } from "../../../../src/interfaces/watch/server/azure-events-route";

// Who may deliver to POST /events/azure without the shared secret (loopback only): nothing a web
// page in a browser on this machine could send. And what an oversized delivery gets back.

const SUB = "00000000-0000-0000-0000-000000000000";
const TDE = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/a/transparentDataEncryption/current`;
const DELIVERY = JSON.stringify([
  {
    id: "5f0b7e0c-0000-4000-8000-00000000e003",
    eventType: "Microsoft.Resources.ResourceWriteSuccess",
    subject: TDE,
    eventTime: "2026-11-27T10:01:00Z",
    topic: `/subscriptions/${SUB}`,
    dataVersion: "",
    metadataVersion: "1",
    data: {
      resourceUri: TDE,
      operationName: "Microsoft.Sql/servers/databases/transparentDataEncryption/write",
      status: "Succeeded",
      claims: { "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn": "mallory@evil.example" },
    },
  },
]);
const SECRET = "0123456789abcdef0123";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(taken: ChangeRecord[], secret?: string): Promise<{ port: number; url: string }> {
  const route = new AzureEventsRoute({
    host: "127.0.0.1",
    secret,
    accept: (records) => (taken.push(...records), records.length),
    log: () => {},
  });
  server = createServer((req, res) => route.serve(req, res, new URL(req.url ?? "/", "http://x").searchParams));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}/events/azure` };
}

/** A raw request (fetch will not send a foreign Host header); resolves with the status and body. */
function send(
  port: number,
  o: { method?: string; path?: string; headers: Record<string, string | number>; body?: string | Buffer; chunks?: number },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method: o.method ?? "POST", path: o.path ?? "/events/azure", headers: o.headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    for (let i = 0; i < (o.chunks ?? 0); i++) req.write(Buffer.alloc(256 * 1024, 0x20));
    req.end(o.body);
  });
}

describe("Event Grid deliveries without a shared secret (loopback)", () => {
  it("a request for a host name that is not loopback (DNS rebinding) is refused with 403 and takes nothing", async () => {
    const taken: ChangeRecord[] = [];
    const { port } = await serve(taken);
    const r = await send(port, { headers: { host: "attacker.example:9090", "content-type": "application/json" }, body: DELIVERY });
    expect(r.status).toBe(403);
    expect(r.body).toMatch(/loopback host name/);
    expect(taken).toEqual([]);
  });

  it("a request carrying Origin (a web page's) is refused with 403, even as JSON to 127.0.0.1", async () => {
    const taken: ChangeRecord[] = [];
    const { port } = await serve(taken);
    const r = await send(port, {
      headers: { host: `127.0.0.1:${port}`, origin: "http://attacker.example", "content-type": "application/json" },
      body: DELIVERY,
    });
    expect(r.status).toBe(403);
    expect(r.body).toMatch(/Origin/);
    const preflight = await send(port, { method: "OPTIONS", headers: { host: `127.0.0.1:${port}`, origin: "http://attacker.example" } });
    expect(preflight.status).toBe(403);
    expect(taken).toEqual([]);
  });

  it("a body that is not JSON (what a page may post without a preflight: text/plain, forms) is refused with 415", async () => {
    const taken: ChangeRecord[] = [];
    const { port } = await serve(taken);
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", undefined]) {
      const headers: Record<string, string> = { host: `localhost:${port}` };
      if (type) headers["content-type"] = type;
      const r = await send(port, { headers, body: DELIVERY });
      expect(r.status, String(type)).toBe(415);
    }
    expect(taken).toEqual([]);
  });

  it("Event Grid's own deliveries pass: both schemas' content types, on a loopback host", async () => {
    const taken: ChangeRecord[] = [];
    const { port } = await serve(taken);
    for (const type of ["application/json", "application/cloudevents-batch+json; charset=utf-8", "Application/JSON"]) {
      const r = await send(port, { headers: { host: `[::1]:${port}`, "content-type": type }, body: DELIVERY });
      expect(r.status, type).toBe(200);
    }
    expect(taken).toHaveLength(3);
  });

  it("with the secret configured and given, the same request is taken whatever its Host, Origin and content type", async () => {
    const taken: ChangeRecord[] = [];
    const { port } = await serve(taken, SECRET);
    const headers = { host: "events.example.com", origin: "https://portal.azure.com", "content-type": "text/plain" };
    expect((await send(port, { path: `/events/azure?key=${SECRET}`, headers, body: DELIVERY })).status).toBe(200);
    expect((await send(port, { path: `/events/azure?key=wrong`, headers, body: DELIVERY })).status).toBe(401);
    expect(taken).toHaveLength(1);
  });
});

describe("oversized deliveries", () => {
  it("a body over 1 MB gets 413 with a short answer, not a reset, and the connection stays usable", async () => {
    const taken: ChangeRecord[] = [];
    const { port, url } = await serve(taken);
    // Streamed in chunks (no Content-Length: found too large while reading).
    const streamed = await send(port, { headers: { host: `127.0.0.1:${port}`, "content-type": "application/json" }, chunks: 20 });
    expect(streamed.status).toBe(413);
    expect(streamed.body).toBe(`a delivery is at most ${MAX_DELIVERY_BYTES} bytes\n`);
    // Declared too large by its Content-Length (fetch sends one).
    const declared = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(3 * MAX_DELIVERY_BYTES),
    });
    expect(declared.status).toBe(413);
    expect((await declared.text()).length).toBeLessThan(100);
    // The same keep-alive agent goes on to deliver.
    const next = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: DELIVERY });
    expect(next.status).toBe(200);
    expect(taken).toHaveLength(1);
  });
});
