import { Agent } from "undici";
import { afterAll, beforeAll, expect, it } from "vitest";
import { HttpTransport, composeRetry } from "../../../src/platform/http";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

let t: TestEmulator;
const agent = new Agent();
beforeAll(async () => {
  t = await startTestEmulator({ faults: { rules: [{ match: "/metadata/instance", status: 503, count: 2 }] } });
});
afterAll(async () => {
  await agent.close();
  await t.close();
});

it("a custom dispatcher without the retry interceptor still retries (the transport composes it in)", async () => {
  const http = new HttpTransport({
    baseUrl: t.imdsEndpoint,
    dispatcher: agent,
    retry: FAST_RETRY,
    headers: { metadata: "true" },
    query: { "api-version": "2020-10-01" },
  });
  const res = await http.request<{ compute?: unknown }>({ operation: "Instances_GetMetadata", method: "GET", path: "/instance" });
  expect(res.status).toBe(200);
  expect(res.attempts).toBe(3);
});

it("composing twice is harmless: composeRetry is idempotent", () => {
  const once = composeRetry(agent);
  expect(composeRetry(once)).toBe(once);
});
