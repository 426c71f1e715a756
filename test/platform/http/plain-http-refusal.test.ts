import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  credentialOriginProblem,
  isLinkLocalHost,
  isLoopbackHost,
  tokenSourceProblem,
} from "../../../src/platform/http/credential-origins";
import { ApiError, HttpTransport, type AuthPolicy } from "../../../src/platform/http";
import { ImdsClient } from "../../../src/services/imds/client";
import { FAST_RETRY } from "../../helpers/emulator";
import { json, startScriptedServer, type ScriptedServer } from "./scripted-server";
import { runCliWith, stackDir } from "../../interfaces/cli/cli-harness";

/**
 * Credentials go over plain http only to this machine. Hosts under .invalid never resolve, so a
 * request that were sent would fail with a DNS error, not with the refusal asserted here.
 */
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((_q, res) => json(res, 200, { ok: true }));
});
afterAll(() => server.close());

const bearer = (asked: { n: number }): AuthPolicy => ({
  kind: "bearer",
  scopes: ["https://management.azure.com/.default"],
  credential: {
    getToken: async () => {
      asked.n += 1;
      return { token: "planted-bearer-7f3a", expiresOnTimestamp: Date.now() + 3600_000 };
    },
  },
});

async function call(baseUrl: string, auth: AuthPolicy): Promise<unknown> {
  const t = new HttpTransport({ baseUrl, auth, retry: FAST_RETRY });
  return t.json({ operation: "Thing_Get", method: "GET", path: "/thing" }).catch((e: unknown) => e);
}

describe("which hosts are this machine", () => {
  it("loopback and link-local, by address and by name", () => {
    for (const h of ["127.0.0.1", "127.8.9.10", "[::1]", "::1", "localhost", "LOCALHOST", "emu.localhost", "[::ffff:127.0.0.1]"])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["10.0.0.1", "169.254.169.254", "example.com", "localhost.example.com", "[::2]", "128.0.0.1", "0.0.0.0"])
      expect(isLoopbackHost(h), h).toBe(false);
    expect(isLinkLocalHost("169.254.169.254")).toBe(true);
    expect(isLinkLocalHost("[fe80::1]")).toBe(true);
    expect(isLinkLocalHost("10.0.0.1")).toBe(false);
  });

  it("the rules: https anywhere; http to loopback for credentials; http to loopback or link-local for a token source", () => {
    expect(credentialOriginProblem("https://management.azure.com", "a bearer token")).toBeUndefined();
    expect(credentialOriginProblem("http://127.0.0.1:4000", "a bearer token")).toBeUndefined();
    expect(credentialOriginProblem("http://169.254.169.254", "a bearer token")).toMatch(/^refusing to send a bearer token over plain http/);
    expect(credentialOriginProblem("http://arm.example.com", "an API key")).toBe(
      "refusing to send an API key over plain http to http://arm.example.com: credentials go over http only to a loopback address (the local emulator); use https",
    );
    expect(tokenSourceProblem("http://169.254.169.254/metadata")).toBeUndefined();
    expect(tokenSourceProblem("http://127.0.0.1:4000/metadata")).toBeUndefined();
    expect(tokenSourceProblem("http://imds.example.com/metadata")).toMatch(/^refusing to fetch tokens over plain http/);
  });
});

describe("the transport refuses to send credentials over plain http to another host", () => {
  it("a bearer token: refused before the credential is even asked, nothing sent", async () => {
    const asked = { n: 0 };
    const e = (await call("http://arm.stackwarden-test.invalid", bearer(asked))) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ code: "InsecureConnection", status: 0 });
    expect(e.message).toContain("refusing to send a bearer token over plain http to http://arm.stackwarden-test.invalid");
    expect(asked.n).toBe(0);
  });

  it("API keys, in a header or in the query: refused", async () => {
    for (const auth of [
      { kind: "header", headers: { "X-APISETU-APIKEY": "k-123" } },
      { kind: "query", name: "api_key", value: "k-456" },
    ] as AuthPolicy[]) {
      const e = (await call("http://geo.stackwarden-test.invalid", auth)) as ApiError;
      expect(e).toMatchObject({ code: "InsecureConnection" });
      expect(e.message).toContain("refusing to send an API key over plain http");
      expect(e.message).not.toMatch(/k-123|k-456/);
    }
  });

  it("over http to a loopback address (the emulator), every kind is sent", async () => {
    const asked = { n: 0 };
    const n = server.seen.length;
    for (const auth of [
      bearer(asked),
      { kind: "header", headers: { "X-APISETU-APIKEY": "k" } },
      { kind: "query", name: "api_key", value: "k" },
    ] as AuthPolicy[]) {
      expect(await call(server.url, auth)).toEqual({ ok: true });
      expect(await call(server.url.replace("127.0.0.1", "localhost"), auth)).toEqual({ ok: true });
    }
    expect(server.seen.length - n).toBe(6);
    expect(server.seen.at(-6)!.headers.authorization).toBe("Bearer planted-bearer-7f3a");
  });

  it("no auth, no refusal: plain http anywhere is the caller's business", async () => {
    const e = (await call("http://plain.stackwarden-test.invalid", { kind: "none" })) as ApiError;
    expect(e.code).not.toBe("InsecureConnection");
  });

  it("IMDS tokens are not fetched over http from a host that is neither loopback nor link-local", async () => {
    const e = (await new ImdsClient({ endpoint: "http://imds.stackwarden-test.invalid/metadata" })
      .token({ resource: "https://management.azure.com/" })
      .catch((x: unknown) => x)) as ApiError;
    expect(e).toMatchObject({ code: "InsecureConnection", operation: "Identity_GetToken" });
  });
});

describe("the CLI refuses such endpoints in one line, before any request", () => {
  const dir = stackDir({
    "stack.yaml": "config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n",
  });

  it("STACKWARDEN_ARM_ENDPOINT=http://<not loopback>: plan exits 1 with one line naming the variable", async () => {
    const r = await runCliWith(["plan", "--config", "stack.yaml"], {
      cwd: dir,
      env: { STACKWARDEN_ARM_ENDPOINT: "http://10.20.30.40:4000", AZURE_ACCESS_TOKEN: "planted-cli-token-19d" },
    });
    expect(r.code).toBe(1);
    expect(r.transcript).toEqual([
      "err stackwarden: SW_SETTING_INVALID: STACKWARDEN_ARM_ENDPOINT: refusing to send a bearer token over plain http to http://10.20.30.40:4000: credentials go over http only to a loopback address (the local emulator); use https",
    ]);
  });

  it("STACKWARDEN_IMDS_ENDPOINT=http://<not loopback or link-local>: whoami exits 1 with one line", async () => {
    const r = await runCliWith(["whoami"], {
      cwd: dir,
      env: { STACKWARDEN_IMDS_ENDPOINT: "http://imds.stackwarden-test.invalid/metadata" },
    });
    expect(r.code).toBe(1);
    expect(r.transcript).toHaveLength(1);
    expect(r.transcript[0]).toMatch(
      /^err stackwarden: SW_SETTING_INVALID: STACKWARDEN_IMDS_ENDPOINT: refusing to fetch tokens over plain http from http:\/\/imds\./,
    );
  });

  it("the defaults pass: https for ARM, IMDS at the link-local 169.254.169.254", async () => {
    const { endpointsFromEnv } = await import("../../../src/platform/settings/endpoints");
    expect(endpointsFromEnv({})).toEqual({ arm: "https://management.azure.com", imds: "http://169.254.169.254/metadata" });
    expect(
      endpointsFromEnv({ STACKWARDEN_ARM_ENDPOINT: "http://127.0.0.1:9", STACKWARDEN_IMDS_ENDPOINT: "http://[::1]:9/metadata" }),
    ).toEqual({
      arm: "http://127.0.0.1:9",
      imds: "http://[::1]:9/metadata",
    });
  });
});
