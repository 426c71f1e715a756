import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultCredential } from "../../src/auth/default-credential";
import { ARM_SCOPE } from "../../src/auth/scopes";
import { main } from "../../src/cli/main";
import type { CommandIO } from "../../src/cli/command-io";
import type { LocalService } from "../../src/emulator/kit/local-service";
import { ApiError } from "../../src/http/api-error";
import type { AuthPolicy } from "../../src/http/auth-policy";
import type { Logger } from "../../src/http/logger";
import { HttpTransport } from "../../src/http/transport";
import { imdsLocal } from "../../src/emulator/services/imds/imds-local";
import { PROJECT_ROOT } from "../../src/version";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { json, startScriptedServer, type ScriptedServer } from "../http/scripted-server";

/**
 * Secrets planted where a careless transport would print them: a bearer token (AZURE_ACCESS_TOKEN,
 * and tokens the emulator's IMDS issues), an `api_key` query key and an `X-APISETU-APIKEY` header.
 * Servers echo the request URL and headers back in their error bodies. No error, log line or CLI
 * output may contain any of them.
 */
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
const PLANTED_JWT = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: "PLANTED-SUBJECT", exp: Math.floor(Date.now() / 1000) + 3600 })}.UExBTlRFRC1TSUdOQVRVUkUtMDEyMzQ1Njc4OQ`;
const OPAQUE_TOKEN = "planted-opaque-token-7c1d9e";
const QUERY_KEY = "gk-planted-query-key-5a8f";
const HEADER_KEY = "hk-planted-header-key-93b2";
const SECRETS = [PLANTED_JWT, OPAQUE_TOKEN, QUERY_KEY, HEADER_KEY];

/** A logger with debug on, that keeps every line. */
function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, debugEnabled: true, debug: (l) => lines.push(l), warn: (l) => lines.push(l) };
}

/** Everything an error exposes to a user or a log: message, stack, fields, inspection, JSON. */
function surfaces(e: unknown): string {
  const err = e as Error;
  return [err.message, err.stack ?? "", inspect(err, { depth: 5 }), JSON.stringify(err), String(err)].join("\n");
}

function expectClean(text: string, secrets: string[] = SECRETS): void {
  for (const s of secrets) expect(text.includes(s), `leaked ${s.slice(0, 12)}... in:\n${text}`).toBe(false);
  expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/);
}

let echo: ScriptedServer;
beforeAll(async () => {
  // An unhelpful gateway: every error echoes the whole request back, first as a 503, then as a 401.
  echo = await startScriptedServer();
});
afterAll(async () => {
  await echo.close();
});

function echoing(status = 401) {
  echo.script((q, res, n) =>
    json(
      res,
      n === 0 ? 503 : status,
      {
        error: { code: "Echo", message: `rejected ${q.method} ${q.url} with headers ${JSON.stringify(q.headers)}` },
      },
      { "x-ms-request-id": `rid-${n}`, "retry-after-ms": "1" },
    ),
  );
}

async function failWith(auth: AuthPolicy, logger: Logger, query?: Record<string, string>): Promise<unknown> {
  const t = new HttpTransport({ baseUrl: echo.url, auth, retry: FAST_RETRY, logger });
  try {
    await t.json({ operation: "Echo_Get", method: "GET", path: "/echo", query });
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail");
}

describe("secrets never reach errors or logs", () => {
  it("an api_key in the query string", async () => {
    echoing();
    const logger = captureLogger();
    const e = await failWith({ kind: "query", name: "api_key", value: QUERY_KEY }, logger, { address: "1 Main St" });
    expect(new URL(echo.seen[0].url, echo.url).searchParams.get("api_key")).toBe(QUERY_KEY); // it was sent
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).message).toContain("rejected GET /echo?"); // the echo made it into the message ...
    expectClean(surfaces(e)); // ... without the key
    expect(logger.lines.length).toBeGreaterThanOrEqual(2); // a retry warning and a debug line at least
    expectClean(logger.lines.join("\n"));
  });

  it("an X-APISETU-APIKEY header", async () => {
    echoing();
    const logger = captureLogger();
    const e = await failWith(
      { kind: "header", headers: { "X-APISETU-APIKEY": HEADER_KEY, "X-APISETU-CLIENTID": "client-visible" } },
      logger,
    );
    expect(echo.seen[0].headers["x-apisetu-apikey"]).toBe(HEADER_KEY);
    expect((e as ApiError).message).toContain("client-visible"); // the client id is not a secret
    expectClean(surfaces(e));
    expectClean(logger.lines.join("\n"));
  });

  it("AZURE_ACCESS_TOKEN, JWT-shaped or opaque, as a bearer token", async () => {
    for (const token of [PLANTED_JWT, OPAQUE_TOKEN]) {
      echoing();
      const logger = captureLogger();
      const credential = defaultCredential({ AZURE_ACCESS_TOKEN: token });
      const e = await failWith({ kind: "bearer", credential, scopes: [ARM_SCOPE] }, logger);
      expect(echo.seen[0].headers.authorization).toBe(`Bearer ${token}`);
      expectClean(surfaces(e));
      expectClean(logger.lines.join("\n"));
    }
  });

  it("a token the emulator's IMDS issued, echoed by an ARM route", async () => {
    const leaky: LocalService = {
      name: "leaky",
      seedSchema: { type: "object" },
      initialState: () => ({}),
      mount(ctx) {
        ctx.arm("GET", "/subscriptions/:sub/providers/Test.Leaky/things", ["2021-01-01"], (req) => ({
          status: 409,
          body: { error: { code: "Conflict", message: `conflict for ${String(req.headers.authorization)}` } },
        }));
      },
    };
    const t: TestEmulator = await startTestEmulator({ services: [imdsLocal as LocalService, leaky] });
    try {
      const issued = (await t.credential.getToken(ARM_SCOPE)).token;
      const logger = captureLogger();
      const arm = new HttpTransport({
        baseUrl: t.url,
        auth: { kind: "bearer", credential: t.credential, scopes: [ARM_SCOPE] },
        query: { "api-version": "2021-01-01" },
        retry: FAST_RETRY,
        logger,
      });
      const e = await arm.json({ operation: "Things_List", method: "GET", path: "/subscriptions/s1/providers/Test.Leaky/things" }).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect((e as ApiError).message).toContain("conflict for Bearer REDACTED");
      expectClean(surfaces(e), [issued]);
      expectClean(logger.lines.join("\n"), [issued]);
    } finally {
      await t.close();
    }
  });

  it("a credential's failure message is scrubbed before it becomes an ApiError", async () => {
    echoing();
    const credential = {
      getToken: async () => {
        throw new Error(`token endpoint said: bad assertion ${PLANTED_JWT}`);
      },
    };
    const logger = captureLogger();
    const e = await failWith({ kind: "bearer", credential, scopes: [ARM_SCOPE] }, logger);
    expect((e as ApiError).code).toBe("CredentialUnavailable");
    expectClean(surfaces(e));
    expect(echo.seen).toHaveLength(0);
  });
});

describe("secrets never reach the CLI's output", () => {
  let t: TestEmulator;
  beforeAll(async () => {
    t = await startTestEmulator();
  });
  afterAll(async () => {
    await t.close();
  });

  function io(env: NodeJS.ProcessEnv): CommandIO & { stdout: string[]; stderr: string[] } {
    const stdout: string[] = [];
    const stderr: string[] = [];
    return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l), isTTY: false, env, cwd: PROJECT_ROOT, exitCode: 0 };
  }

  it("whoami --output json shows the token as REDACTED (in-process)", async () => {
    const cli = io({ STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint, AZURE_ACCESS_TOKEN: PLANTED_JWT });
    expect(await main(["whoami", "--output", "json"], cli)).toBe(0);
    const out = cli.stdout.join("\n");
    expect((JSON.parse(out) as { token: { access_token: string } }).token.access_token).toBe("REDACTED");
    expectClean(out + cli.stderr.join("\n"));
  });

  it("whoami, run as a process with STACKWARDEN_LOG=debug and faults, prints no token or key", async () => {
    if (!existsSync(join(PROJECT_ROOT, "dist", "src", "cli", "main.js"))) throw new Error("dist/ is missing: run `npm run build`");
    t.emu.faults.configure({ seed: 11, latencyMs: 0, maxConsecutive: 2, rules: [{ status: 429, rate: 0.5, retryAfterMs: 5 }] });
    const env = {
      ...process.env,
      STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint,
      STACKWARDEN_LOG: "debug",
      AZURE_ACCESS_TOKEN: PLANTED_JWT,
      AZURE_CLIENT_ID: "",
    };
    for (const args of [["whoami", "--output", "json"], ["whoami"]]) {
      const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [join(PROJECT_ROOT, "bin", "stackwarden.js"), ...args], { env });
        let out = "";
        let err = "";
        child.stdout.on("data", (c: Buffer) => {
          out += c.toString();
        });
        child.stderr.on("data", (c: Buffer) => {
          err += c.toString();
        });
        child.on("close", (code) => resolve({ code, out, err }));
      });
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain("[stackwarden]"); // debug logging was on
      expect(r.err).toContain("Identity_GetToken GET"); // including the token request's lines
      expectClean(r.out + r.err);
    }
    t.emu.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 3, rules: [] });
  }, 40_000);
});
