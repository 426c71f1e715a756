import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AccessTokens } from "../../src/emulator/kit/access-tokens";
import { ARM_AUDIENCES, armError, resourceNotFound } from "../../src/emulator/kit/arm-conventions";
import type { LocalService } from "../../src/emulator/kit/local-service";
import { ARM_SCOPE } from "../../src/platform/auth/scopes";
import { imdsLocal } from "../../src/emulator/services/imds/imds-local";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";

/** A tiny ARM service with one route, to exercise the emulator's ARM front door. */
const widgets: LocalService<{ names: string[] }> = {
  name: "widgets",
  seedSchema: { type: "object" },
  initialState: () => ({ names: ["w1"] }),
  mount(ctx) {
    ctx.arm("GET", "/subscriptions/:sub/providers/Test.Widgets/widgets/:name", ["2021-01-01", "2022-02-02"], (req) =>
      ctx.state().names.includes(req.params.name)
        ? { status: 200, body: { id: req.path, name: req.params.name, apiVersion: req.query.get("api-version") } }
        : resourceNotFound("Test.Widgets/widgets", req.params.name),
    );
    ctx.arm("PUT", "/subscriptions/:sub/providers/Test.Widgets/widgets/:name", ["2021-01-01"], (req) => {
      const body = req.body as { properties?: unknown } | undefined;
      if (!body?.properties) return armError(400, "InvalidRequestContent", "properties are required");
      ctx.state().names.push(req.params.name);
      ctx.changed();
      return { status: 201, body: { name: req.params.name, properties: body.properties } };
    });
  },
};

const PATH = "/subscriptions/s1/providers/Test.Widgets/widgets/w1";
let t: TestEmulator;
let token: string;

beforeAll(async () => {
  t = await startTestEmulator({ services: [imdsLocal as LocalService, widgets as LocalService] });
  token = (await t.credential.getToken(ARM_SCOPE)).token;
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  // Put the clock back where it was, whatever a test did to it.
  const r = (await (await fetch(`${t.url}/_emulator/clock`, { method: "POST", body: JSON.stringify({ advanceMs: 0 }) })).json()) as {
    offsetMs: number;
  };
  if (r.offsetMs !== 0) t.emu.advanceClock(-r.offsetMs);
});

async function call(path: string, init: { method?: string; auth?: string | null; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.auth !== null) headers.authorization = init.auth ?? `Bearer ${token}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(t.url + path, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as { error?: { code: string; message: string } } & Record<string, unknown>) : undefined,
    headers: res.headers,
  };
}

function expectArmError(r: Awaited<ReturnType<typeof call>>, status: number, code: string): string {
  expect(r.status).toBe(status);
  expect(Object.keys(r.body!)).toEqual(["error"]);
  expect(Object.keys(r.body!.error!).sort()).toEqual(["code", "message"]);
  expect(r.body!.error!.code).toBe(code);
  expect(r.body!.error!.message.length).toBeGreaterThan(10);
  return r.body!.error!.message;
}

describe("the emulator's ARM front door", () => {
  it("serves a request with a valid token and api-version, matching the path case-insensitively", async () => {
    const r = await call(`${PATH}?api-version=2022-02-02`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: "w1", apiVersion: "2022-02-02" });
    expect(r.headers.get("x-ms-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect((await call(`${PATH.replace("Test.Widgets", "TEST.WIDGETS")}?api-version=2021-01-01`)).status).toBe(200);
  });

  it("echoes the caller's x-ms-client-request-id", async () => {
    const r = await call(`${PATH}?api-version=2021-01-01`, { headers: { "x-ms-client-request-id": "c-123" } });
    expect(r.headers.get("x-ms-client-request-id")).toBe("c-123");
  });

  it("MissingApiVersionParameter without api-version", async () => {
    const msg = expectArmError(await call(PATH), 400, "MissingApiVersionParameter");
    expect(msg).toContain("api-version");
  });

  it("InvalidApiVersionParameter for a version the route does not speak, listing the supported ones", async () => {
    const msg = expectArmError(await call(`${PATH}?api-version=2014-04-01`), 400, "InvalidApiVersionParameter");
    expect(msg).toContain("'2014-04-01'");
    expect(msg).toContain("'2021-01-01', '2022-02-02'");
    // Each route has its own versions: the PUT speaks only 2021-01-01.
    expectArmError(
      await call(`${PATH}?api-version=2022-02-02`, { method: "PUT", body: { properties: {} } }),
      400,
      "InvalidApiVersionParameter",
    );
  });

  it("AuthenticationFailed without an Authorization header, with a Bearer challenge", async () => {
    const r = await call(`${PATH}?api-version=2021-01-01`, { auth: null });
    expectArmError(r, 401, "AuthenticationFailed");
    expect(r.headers.get("www-authenticate")).toBe(
      `Bearer authorization_uri="https://login.windows.net/", error="invalid_token", error_description="Authentication failed. The 'Authorization' header is missing."`,
    );
  });

  it("AuthenticationFailed for a header that is not a bearer token", async () => {
    expectArmError(await call(`${PATH}?api-version=2021-01-01`, { auth: "Basic dXNlcjpwYXNz" }), 401, "AuthenticationFailed");
  });

  it("InvalidAuthenticationToken for garbage, a foreign signature or a tampered payload", async () => {
    expectArmError(await call(`${PATH}?api-version=2021-01-01`, { auth: "Bearer not-a-jwt" }), 401, "InvalidAuthenticationToken");
    expectArmError(await call(`${PATH}?api-version=2021-01-01`, { auth: "Bearer a.b.c" }), 401, "InvalidAuthenticationToken");
    const foreign = new AccessTokens().issue({
      resource: "https://management.azure.com/",
      tenantId: "t",
      objectId: "o",
      clientId: "c",
      ttlSeconds: 3600,
      now: Date.now(),
    }).token;
    expectArmError(await call(`${PATH}?api-version=2021-01-01`, { auth: `Bearer ${foreign}` }), 401, "InvalidAuthenticationToken");
    const [h, p, s] = token.split(".");
    const claims = JSON.parse(Buffer.from(p, "base64url").toString()) as { exp: number };
    const forged = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 86_400 })).toString("base64url");
    expectArmError(await call(`${PATH}?api-version=2021-01-01`, { auth: `Bearer ${h}.${forged}.${s}` }), 401, "InvalidAuthenticationToken");
  });

  it("ExpiredAuthenticationToken once the emulator's clock passes the token's expiry", async () => {
    expect((await call(`${PATH}?api-version=2021-01-01`)).status).toBe(200);
    t.emu.advanceClock((t.emu.settings.tokenTtlSeconds + 5) * 1000);
    const msg = expectArmError(await call(`${PATH}?api-version=2021-01-01`), 401, "ExpiredAuthenticationToken");
    // ARM prints .NET's UTC DateTime: `6/15/2026 8:22:51 AM`.
    const time = String.raw`\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d{2}:\d{2} [AP]M`;
    expect(msg).toMatch(new RegExp(`^The access token expiry UTC time '${time}' is earlier than current UTC time '${time}'\\.$`));
  });

  it("ExpiredAuthenticationToken also when the clock moves through the admin API", async () => {
    await fetch(`${t.url}/_emulator/clock`, { method: "POST", body: JSON.stringify({ advanceMs: 2 * 3600_000 }) });
    expectArmError(await call(`${PATH}?api-version=2021-01-01`), 401, "ExpiredAuthenticationToken");
  });

  it("InvalidAuthenticationTokenAudience for a token issued for another resource (a key vault), with its challenge", async () => {
    const vault = (await t.credential.getToken("https://vault.azure.net/.default")).token;
    const r = await call(`${PATH}?api-version=2021-01-01`, { auth: `Bearer ${vault}` });
    const msg = expectArmError(r, 401, "InvalidAuthenticationTokenAudience");
    expect(msg).toBe(
      "The access token has been obtained for wrong audience or resource 'https://vault.azure.net/'. It should exactly match with one of the allowed audiences 'https://management.core.windows.net/','https://management.core.windows.net','https://management.azure.com/','https://management.azure.com'.",
    );
    const tenant = JSON.parse(Buffer.from(vault.split(".")[1], "base64url").toString()) as { tid: string };
    expect(r.headers.get("www-authenticate")).toBe(
      `Bearer authorization_uri="https://login.windows.net/${tenant.tid}", error="invalid_token", error_description="${msg}"`,
    );
  });

  it("accepts both Resource Manager audiences, with or without the trailing slash, and nothing near them", async () => {
    for (const resource of ARM_AUDIENCES) {
      const tok = (await t.credential.getToken(resource)).token;
      expect((await call(`${PATH}?api-version=2021-01-01`, { auth: `Bearer ${tok}` })).status, resource).toBe(200);
    }
    for (const resource of [
      "https://management.azure.com//",
      "https://MANAGEMENT.azure.com/",
      "https://management.azure.com/x",
      "api://management",
    ]) {
      const tok = (await t.credential.getToken(resource)).token;
      expectArmError(await call(`${PATH}?api-version=2021-01-01`, { auth: `Bearer ${tok}` }), 401, "InvalidAuthenticationTokenAudience");
    }
  });

  it("judges the audience before the expiry: an expired vault token is still the wrong audience", async () => {
    const vault = (await t.credential.getToken("https://vault.azure.net/.default")).token;
    t.emu.advanceClock((t.emu.settings.tokenTtlSeconds + 5) * 1000);
    expectArmError(await call(`${PATH}?api-version=2021-01-01`, { auth: `Bearer ${vault}` }), 401, "InvalidAuthenticationTokenAudience");
    const r = await call(`${PATH}?api-version=2021-01-01`);
    expectArmError(r, 401, "ExpiredAuthenticationToken");
    expect(r.headers.get("www-authenticate")).toMatch(/error="invalid_token", error_description="The access token expiry UTC time/);
  });

  it("checks the token before the api-version, as ARM does", async () => {
    expectArmError(await call(PATH, { auth: null }), 401, "AuthenticationFailed");
  });

  it("hands the handler parsed JSON and maps its ARM errors", async () => {
    const created = await call("/subscriptions/s1/providers/Test.Widgets/widgets/w2?api-version=2021-01-01", {
      method: "PUT",
      body: { properties: { size: 3 } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ name: "w2", properties: { size: 3 } });
    expect((await call("/subscriptions/s1/providers/Test.Widgets/widgets/w2?api-version=2021-01-01")).status).toBe(200);
    expectArmError(
      await call("/subscriptions/s1/providers/Test.Widgets/widgets/w3?api-version=2021-01-01", { method: "PUT", body: {} }),
      400,
      "InvalidRequestContent",
    );
    expectArmError(await call("/subscriptions/s1/providers/Test.Widgets/widgets/nope?api-version=2021-01-01"), 404, "ResourceNotFound");
  });

  it("refuses a JSON body that does not parse", async () => {
    const res = await fetch(`${t.url}/subscriptions/s1/providers/Test.Widgets/widgets/w9?api-version=2021-01-01`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: '{"properties":',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("InvalidRequestContent");
  });

  it("answers unrouted paths with 404 and wrong methods with 405, in ARM's shape", async () => {
    expectArmError(await call("/subscriptions/s1/providers/Test.Nothing/x?api-version=2021-01-01"), 404, "NotFound");
    expectArmError(await call(`${PATH}?api-version=2021-01-01`, { method: "DELETE" }), 405, "MethodNotAllowed");
  });

  it("counts requests by route pattern", async () => {
    await fetch(`${t.url}/_emulator/stats/reset`, { method: "POST" });
    await call(`${PATH}?api-version=2021-01-01`);
    await call("/subscriptions/s2/providers/Test.Widgets/widgets/w1?api-version=2021-01-01");
    // Parameter values that also occur inside other segments, or repeat, still map to their own segment.
    await call("/subscriptions/s/providers/Test.Widgets/widgets/w1?api-version=2021-01-01");
    await call("/subscriptions/w1/providers/Test.Widgets/widgets/w1?api-version=2021-01-01");
    await call("/subscriptions/Test.Widgets/providers/Test.Widgets/widgets/w1?api-version=2021-01-01");
    const stats = (await (await fetch(`${t.url}/_emulator/stats`)).json()) as { total: number; byRoute: Record<string, number> };
    expect(stats.total).toBe(5);
    expect(stats.byRoute).toEqual({ "GET /subscriptions/{sub}/providers/Test.Widgets/widgets/{name}": 5 });
  });
});
