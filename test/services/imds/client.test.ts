import { setTimeout as delay } from "node:timers/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Logger } from "../../../src/platform/http/logger";
import { ApiError } from "../../../src/platform/http/api-error";
import { readAttestedDocument } from "../../../src/services/imds/attested-document";
import { ImdsClient } from "../../../src/services/imds/client";
import type { ImdsAttestedContent } from "../../../src/services/imds/types";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({
    seed: seedFromYaml(`
imds:
  compute:
    vmId: 0d1e2f30-aaaa-bbbb-cccc-1234567890ab
    subscriptionId: 11111111-0000-0000-0000-000000000000
    sku: 22_04-lts-gen2
    platformFaultDomain: 2
  userIdentities:
    - clientId: uai-client
      objectId: uai-object
      resourceId: /subscriptions/11111111-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/uai
`),
  });
});
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  t.emu.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 3, rules: [] });
  t.emu.stats.total = 0;
  for (const k of Object.keys(t.emu.stats.byRoute)) delete t.emu.stats.byRoute[k];
});

function capture(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, debug: (l) => lines.push(`debug ${l}`), warn: (l) => lines.push(`warn ${l}`) };
}

describe("ImdsClient against the emulator", () => {
  it("reads the instance, identity info and a token, sending Metadata: true and the api-version", async () => {
    const client = new ImdsClient({ endpoint: t.imdsEndpoint, retry: FAST_RETRY });
    const instance = await client.instance();
    expect(instance.compute?.vmId).toBe("0d1e2f30-aaaa-bbbb-cccc-1234567890ab");
    expect(instance.network?.interface?.[0]?.ipv4?.ipAddress?.[0]?.privateIpAddress).toBe("10.0.0.4");
    expect((await client.identityInfo()).tenantId).toMatch(/^[0-9a-f-]{36}$/);
    const token = await client.token({ resource: "https://management.azure.com/" });
    expect(token.token_type).toBe("Bearer");
    expect(Number(token.expires_on)).toBeGreaterThan(Date.now() / 1000);
    expect(t.emu.tokens.verify(token.access_token!, t.emu.now()).ok).toBe(true);
  });

  it("asks for a user-assigned identity by client id, object id or resource id", async () => {
    const client = new ImdsClient({ endpoint: t.imdsEndpoint, retry: FAST_RETRY });
    const byClient = await client.token({ resource: "r", clientId: "uai-client" });
    const byObject = await client.token({ resource: "r", objectId: "uai-object" });
    const byRes = await client.token({
      resource: "r",
      msiResId:
        "/subscriptions/11111111-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/UAI",
    });
    expect([byClient.client_id, byObject.client_id, byRes.client_id]).toEqual(["uai-client", "uai-client", "uai-client"]);
    expect(byObject.object_id).toBe("uai-object");
    await expect(client.token({ resource: "r", clientId: "uai-client", objectId: "uai-object" })).rejects.toMatchObject({
      status: 400,
      code: "invalid_request",
      detail: "Only one of client_id, object_id and msi_res_id may be given",
    });
  });

  it("the attested document is a PKCS#7 signature over the VM's facts and our nonce", async () => {
    const client = new ImdsClient({ endpoint: t.imdsEndpoint, retry: FAST_RETRY });
    const doc = await client.attestedDocument("n0nce42");
    expect(doc.encoding).toBe("pkcs7");
    const read = readAttestedDocument(doc.signature!);
    expect(read.signer).toBe("metadata.azure.com");
    const content = JSON.parse(read.content) as ImdsAttestedContent;
    expect(content).toMatchObject({
      nonce: "n0nce42",
      vmId: "0d1e2f30-aaaa-bbbb-cccc-1234567890ab",
      subscriptionId: "11111111-0000-0000-0000-000000000000",
      sku: "22_04-lts-gen2",
    });
    expect(content.timeStamp.createdOn).toMatch(/^\d\d\/\d\d\/\d\d \d\d:\d\d:\d\d -0000$/);
    await expect(client.attestedDocument("bad nonce!")).rejects.toMatchObject({
      status: 400,
      code: "BadRequest",
      detail: "Bad request. The nonce must be up to 32 alphanumeric characters.",
    });
  });

  it("retries 404 (not ready yet), 429 and 5xx", async () => {
    t.emu.faults.configure({
      seed: 1,
      latencyMs: 0,
      maxConsecutive: 0,
      rules: [
        { match: "/metadata/instance", status: 404, count: 1 },
        { match: "/metadata/instance", status: 429, count: 1, retryAfterMs: 1 },
        { match: "/metadata/instance", status: 500, count: 1 },
      ],
    });
    const client = new ImdsClient({ endpoint: t.imdsEndpoint, retry: FAST_RETRY });
    expect((await client.instance()).compute?.name).toBe("stackwarden-runner");
    expect(t.emu.stats.byRoute["GET /metadata/instance"]).toBe(4);
  });

  it("keeps retrying 410 past maxAttempts while IMDS boots", async () => {
    t.emu.faults.configure({
      seed: 1,
      latencyMs: 0,
      maxConsecutive: 0,
      rules: [{ match: "/metadata/identity/info", status: 410, count: 5 }],
    });
    const client = new ImdsClient({
      endpoint: t.imdsEndpoint,
      retry: { ...FAST_RETRY, maxAttempts: 2, minRetryWindowMs: { 410: 30_000 } },
    });
    expect((await client.identityInfo()).tenantId).toBeTruthy();
    expect(t.emu.stats.byRoute["GET /metadata/identity/info"]).toBe(6);
  });

  it("does not retry a 400, and maps the OAuth error body", async () => {
    const client = new ImdsClient({ endpoint: t.imdsEndpoint, retry: FAST_RETRY });
    const e = await client.token({ resource: "r", clientId: "ghost" }).then(
      () => undefined,
      (x: unknown) => x as ApiError,
    );
    expect(e).toBeInstanceOf(ApiError);
    expect([e!.operation, e!.status, e!.code, e!.detail, e!.attempts]).toEqual([
      "Identity_GetToken",
      400,
      "invalid_request",
      "Identity not found",
      1,
    ]);
    expect(e!.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("learns from a response that drifts from the schema instead of refusing it", async () => {
    const drifting = await startTestEmulator({ seed: seedFromYaml("imds:\n  compute:\n    name: 17\n    newField: { nested: true }\n") });
    try {
      const logger = capture();
      const client = new ImdsClient({ endpoint: drifting.imdsEndpoint, retry: FAST_RETRY, logger });
      const instance = await client.instance();
      expect(instance.compute?.name).toBe(17);
      expect(instance.compute?.newField).toEqual({ nested: true });
      expect(logger.lines.filter((l) => l.startsWith("warn "))).toEqual([
        "warn Instances_GetMetadata: response differs from the published schema: /compute/name must be string",
      ]);
    } finally {
      await drifting.close();
    }
  });

  it("uses the api-version it was given", async () => {
    const client = new ImdsClient({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, apiVersion: "2018-10-01" });
    expect((await client.instance()).compute).toBeTruthy();
    // 2017-03-01 is a documented IMDS version, but /instance exists only from 2017-04-02.
    const old = new ImdsClient({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, apiVersion: "2017-03-01" });
    // IMDS's `{ "error": "<sentence>" }` is read as the message, with the HTTP reason as the code.
    await expect(old.instance()).rejects.toMatchObject({
      status: 400,
      code: "BadRequest",
      detail: expect.stringContaining("api-version is invalid or was not specified"),
    });
  });
});

describe("ImdsClient: an address without IMDS, and an IMDS that restarts", () => {
  const quiet: Logger = { debug() {}, warn() {}, debugEnabled: false };
  const retry = { ...FAST_RETRY, baseDelayMs: 40, maxDelayMs: 80, maxAttempts: 10 };

  function tinyImds(port = 0): Promise<{ server: Server; port: number; requests: () => number }> {
    let n = 0;
    const server = createServer((_req, res) => {
      n += 1;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    return new Promise((resolve) =>
      server.listen(port, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port, requests: () => n })),
    );
  }
  const close = (s: Server) =>
    new Promise<void>((r) => {
      s.closeAllConnections();
      s.close(() => r());
    });

  it("before IMDS has ever answered, a refused connection is final: one attempt, not the retry budget", async () => {
    const { server, port } = await tinyImds();
    await close(server);
    const client = new ImdsClient({ endpoint: `http://127.0.0.1:${port}/metadata`, retry, logger: quiet });
    const e = (await client.instance().catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code, e.attempts]).toEqual([0, "ECONNREFUSED", 1]);
  });

  it("once it has answered, a refused connection is retried: an IMDS that restarts is waited for", async () => {
    const first = await tinyImds();
    const client = new ImdsClient({ endpoint: `http://127.0.0.1:${first.port}/metadata`, retry, logger: quiet });
    await client.instance();
    await close(first.server);
    const pending = client.instance();
    await delay(150);
    const second = await tinyImds(first.port);
    try {
      await expect(pending).resolves.toEqual({});
      expect(second.requests()).toBe(1);
    } finally {
      await close(second.server);
    }
  });
});
