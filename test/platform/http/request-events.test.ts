import { afterEach, describe, expect, it } from "vitest";
import { HttpTransport } from "../../../src/platform/http/transport";
import { serviceOfRequest, subscribeRequestEvents, type RequestEvent } from "../../../src/platform/http/request-events";
import { json, startScriptedServer } from "./scripted-server";

let unsubscribe: (() => void) | undefined;
afterEach(() => unsubscribe?.());

describe("request events", () => {
  it("one event per attempt: a 429 that is retried, then the final 200", async () => {
    const server = await startScriptedServer((_q, res, n) =>
      n === 0
        ? json(res, 429, { error: { code: "TooManyRequests", message: "slow down" } }, { "retry-after-ms": "5" })
        : json(res, 200, { ok: true }),
    );
    const events: RequestEvent[] = [];
    unsubscribe = subscribeRequestEvents((e) => events.push(e));
    const http = new HttpTransport({ baseUrl: server.url, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    await http.json({ operation: "Things_Get", method: "GET", path: "/subscriptions/s/providers/Microsoft.Sql/things/x" });
    await server.close();
    expect(events).toEqual([
      { service: "sql", operation: "Things_Get", status: 429, attempt: 1, retrying: true },
      { service: "sql", operation: "Things_Get", status: 200, attempt: 2, retrying: false },
    ]);
  });

  it("no response is status 0; a listener that throws does not break the request; unsubscribing stops events", async () => {
    const events: RequestEvent[] = [];
    unsubscribe = subscribeRequestEvents((e) => events.push(e));
    const off = subscribeRequestEvents(() => {
      throw new Error("observer bug");
    });
    const http = new HttpTransport({ baseUrl: "http://127.0.0.1:9/metadata", service: "imds", retry: { retryUnreachable: false } });
    await expect(http.json({ operation: "Instances_GetMetadata", method: "GET", path: "/instance" })).rejects.toMatchObject({
      code: "ECONNREFUSED",
    });
    expect(events).toEqual([{ service: "imds", operation: "Instances_GetMetadata", status: 0, attempt: 1, retrying: false }]);
    off();
    unsubscribe!();
    unsubscribe = undefined;
    await expect(http.json({ operation: "Instances_GetMetadata", method: "GET", path: "/instance" })).rejects.toBeTruthy();
    expect(events).toHaveLength(1);
  });

  it("names services from the request", () => {
    const arm = new URL("https://management.azure.com");
    expect(serviceOfRequest(arm, "/subscriptions/s/providers/Provider.BatchAI/workspaces")).toBe("batchai");
    expect(serviceOfRequest(arm, "/subscriptions/s/resourceGroups/rg")).toBe("management.azure.com");
    expect(serviceOfRequest(new URL("http://127.0.0.1:4000/geocoding"), "/geocoding/street/find")).toBe("geocoding");
  });
});
