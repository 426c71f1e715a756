import { join } from "node:path";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultCredential } from "../../src/clients/default-credential";
import { ARM_SCOPE } from "../../src/platform/auth/scopes";
import type { LocalService } from "../../src/emulator/kit/local-service";
import { ApiError } from "../../src/platform/http/api-error";
import type { AuthPolicy } from "../../src/platform/http/auth-policy";
import type { Logger } from "../../src/platform/http/logger";
import { HttpTransport } from "../../src/platform/http/transport";
import { CertificatesClient } from "../../src/services/certificates/client";
import { imdsLocal } from "../../src/emulator/services/imds/imds-local";
import { PROJECT_ROOT } from "../../src/platform/version";
import { cleanShellEnv, requireCompiledCli, runCliProcess, startEmulatorProcess, type EmulatorProcess } from "../helpers/cli-process";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { runCliWith } from "../interfaces/cli/cli-harness";
import { json, startScriptedServer, type ScriptedServer } from "../platform/http/scripted-server";

/**
 * Secrets planted where a careless transport would print them: a bearer token (AZURE_ACCESS_TOKEN,
 * and tokens the emulator's IMDS issues), an `api_key` query key, and an `X-APISETU-APIKEY` header
 * with its `X-APISETU-CLIENTID` (the client id is a credential too). Servers echo the request URL
 * and headers back in their error bodies. No error, log line or CLI output may contain any of them.
 */
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
const PLANTED_JWT = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: "PLANTED-SUBJECT", exp: Math.floor(Date.now() / 1000) + 3600 })}.UExBTlRFRC1TSUdOQVRVUkUtMDEyMzQ1Njc4OQ`;
const OPAQUE_TOKEN = "planted-opaque-token-7c1d9e";
const QUERY_KEY = "gk-planted-query-key-5a8f";
const HEADER_KEY = "hk-planted-header-key-93b2";
const HEADER_CLIENT = "hc-planted-client-id-61e4";
const SECRETS = [PLANTED_JWT, OPAQUE_TOKEN, QUERY_KEY, HEADER_KEY, HEADER_CLIENT];

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
    const e = await failWith({ kind: "header", headers: { "X-APISETU-APIKEY": HEADER_KEY } }, logger);
    expect(echo.seen[0].headers["x-apisetu-apikey"]).toBe(HEADER_KEY);
    expectClean(surfaces(e));
    expectClean(logger.lines.join("\n"));
  });

  it("the certificate issuers' key and client id, in either header spelling", async () => {
    for (const naming of ["real", "described"] as const) {
      // The issuers' error shape, echoing every header: first a 503 (a retry, a warning), then a 401.
      echo.script((q, res, n) =>
        json(
          res,
          n === 0 ? 503 : 401,
          { error: "invalid_authentication", errorDescription: `rejected ${q.method} ${q.url} with headers ${JSON.stringify(q.headers)}` },
          { "retry-after-ms": "1" },
        ),
      );
      const logger = captureLogger();
      const client = new CertificatesClient({
        endpoint: echo.url,
        apiKey: HEADER_KEY,
        clientId: HEADER_CLIENT,
        naming,
        retry: FAST_RETRY,
        logger,
      });
      const e = await client.issue("trcer", { certificateParameters: { ADMN_NO: "ADMN-1", FullName: "A Student" } }).then(
        () => undefined,
        (x: unknown) => x,
      );
      const sent = echo.seen[0].headers;
      expect(naming === "real" ? sent["x-apisetu-clientid"] : sent["x-gateway-clientid"]).toBe(HEADER_CLIENT); // it was sent
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).status).toBe(401);
      expect((e as ApiError).message).toContain("with headers"); // the echo made it into the message ...
      expectClean(surfaces(e)); // ... without the key or the client id
      expect(logger.lines.length).toBeGreaterThanOrEqual(2); // a retry warning and a debug line at least
      expectClean(logger.lines.join("\n"));
    }
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

  it("whoami --output json shows the token as REDACTED (in-process)", async () => {
    const r = await runCliWith(["whoami", "--output", "json"], {
      cwd: PROJECT_ROOT,
      env: { STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint, AZURE_ACCESS_TOKEN: PLANTED_JWT },
    });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { token: { access_token: string } }).token.access_token).toBe("REDACTED");
    expectClean(r.out + r.err);
  });

  it("whoami, run as a process with STACKWARDEN_LOG=debug and faults, prints no token or key", async () => {
    requireCompiledCli();
    t.emu.faults.configure({ seed: 11, latencyMs: 0, maxConsecutive: 2, rules: [{ status: 429, rate: 0.5, retryAfterMs: 5 }] });
    const env = {
      ...process.env,
      STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint,
      STACKWARDEN_LOG: "debug",
      AZURE_ACCESS_TOKEN: PLANTED_JWT,
      AZURE_CLIENT_ID: "",
    };
    for (const args of [["whoami", "--output", "json"], ["whoami"]]) {
      const r = await runCliProcess(args, { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain("[stackwarden]"); // debug logging was on
      expect(r.stderr).toContain("Identity_GetToken GET"); // including the token request's lines
      expectClean(r.stdout + r.stderr);
    }
    t.emu.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 3, rules: [] });
  }, 40_000);
});

/**
 * Every credential input at once, planted with values that can be searched for: AZURE_ACCESS_TOKEN
 * (a token the emulator's IMDS issued, so the commands work; and a forged one, so they fail), the
 * tokens IMDS issues when no token is given (found by their JWT shape), and the key variables of
 * the contract (geocoding and API Setu, planted even where no client reads them yet). Every command
 * runs as a process with STACKWARDEN_LOG=debug; stdout, stderr, every report format, the files
 * check writes, the emulator's own output and its --state directory are searched.
 */
describe("planted credentials appear nowhere, whatever the command, format or log level", () => {
  const GEO_KEY = "geo-planted-key-4d1c9a";
  const SETU_KEY = "setu-planted-key-8b27f0";
  const SETU_CLIENT = "setu-planted-client-c0ffee";
  const planted = [GEO_KEY, SETU_KEY, SETU_CLIENT, PLANTED_JWT];
  let emulator: EmulatorProcess;
  let url = "";
  let work: string;
  let stateDir: string;

  beforeAll(async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    work = mkdtempSync(join(tmpdir(), "stackwarden-secrets-"));
    stateDir = join(work, "state");
    writeFileSync(
      join(work, "seed.yaml"),
      `sql:\n  scanDurationMs: 100\n  servers:\n    - name: sql-secrets\n      resourceGroup: rg-secrets\n      databases:\n        - { name: orders, transparentDataEncryption: Disabled, serviceTierAdvisors: [{ currentServiceLevelObjective: S1, overallRecommendationServiceLevelObjective: S3, confidence: 0.9 }] }\n        - { name: billing, transparentDataEncryption: Enabled }\n      elasticPools:\n        - { name: pool-1, activities: [{ operation: CREATE, state: COMPLETED }] }\nbatchai:\n  usages:\n    - location: eastus\n      usages: [{ name: cores, currentValue: 90, limit: 100 }]\n`,
    );
    writeFileSync(
      join(work, "stack.yaml"),
      `config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:databases:\n    - { resourceGroup: rg-secrets, server: sql-secrets, database: orders, transparentDataEncryption: Enabled, serviceObjective: S1 }\n    - { resourceGroup: rg-secrets, server: sql-secrets, database: billing, transparentDataEncryption: Enabled }\n  stackwarden:elasticPools:\n    - { resourceGroup: rg-secrets, server: sql-secrets, elasticPool: pool-1 }\n  stackwarden:batch:\n    locations: [eastus]\n  stackwarden:probes:\n    - { name: tc, issuer: lawcollegeandaman, doctype: trcer, format: pdf, parameters: { ADMN_NO: "\${env:PROBE_ADMN}", FullName: "\${env:PROBE_NAME}" } }\n`,
    );
    emulator = await startEmulatorProcess(["--seed", join(work, "seed.yaml"), "--state", stateDir], {
      env: { ...process.env, STACKWARDEN_LOG: "debug" },
    });
    url = emulator.url;
  });
  afterAll(async () => {
    if (emulator && emulator.child.exitCode === null) emulator.child.kill("SIGKILL");
    const { rmSync } = await import("node:fs");
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** `stackwarden args…` in a clean shell with every credential planted, STACKWARDEN_LOG=debug and `extra`. */
  function cli(args: string[], extra: NodeJS.ProcessEnv) {
    return runCliProcess(args, {
      cwd: work,
      env: cleanShellEnv({
        STACKWARDEN_ARM_ENDPOINT: url,
        STACKWARDEN_IMDS_ENDPOINT: `${url}/metadata`,
        STACKWARDEN_LOG: "debug",
        STACKWARDEN_GEOCODING_API_KEY: GEO_KEY,
        STACKWARDEN_APISETU_API_KEY: SETU_KEY,
        STACKWARDEN_APISETU_CLIENT_ID: SETU_CLIENT,
        STACKWARDEN_APISETU_ENDPOINT: `${url}/apisetu`,
        PROBE_ADMN: "ADMN-0001",
        PROBE_NAME: "A Student",
        ...extra,
      }),
    });
  }

  const COMMANDS: string[][] = [
    ["plan", "--config", "stack.yaml"],
    ["plan", "--config", "stack.yaml", "--output", "json"],
    ["plan", "--config", "stack.yaml", "--output", "markdown"],
    ["apply", "--config", "stack.yaml", "--yes", "--poll-interval", "50"],
    ["drift", "--config", "stack.yaml"],
    ["drift", "--config", "stack.yaml", "--output", "json"],
    ["drift", "--config", "stack.yaml", "--output", "markdown"],
    ...["table", "json", "sarif", "junit", "markdown"].flatMap((f) => [
      ["check", "--config", "stack.yaml", "--format", f],
      ["check", "--config", "stack.yaml", "--format", f, "--out", `report.${f}`],
    ]),
    ["inventory", "--config", "stack.yaml", "--output", "json"],
    ["inventory", "--config", "stack.yaml", "--output", "yaml"],
    ["inventory", "--config", "stack.yaml"],
    ["whoami"],
    ["whoami", "--output", "json"],
    ["probe", "--config", "stack.yaml"],
    ["probe", "--config", "stack.yaml", "--output", "json"],
    // An evidence bundle (reports, facts with their read receipts, exemptions, manifest), then its check.
    ["evidence", "--config", "stack.yaml", "--out", "bundle"],
    ["evidence", "verify", "bundle"],
  ];

  it("with a valid AZURE_ACCESS_TOKEN, with IMDS tokens, and with a forged token", async () => {
    const res = await fetch(`${url}/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com/`, {
      headers: { Metadata: "true" },
    });
    const valid = ((await res.json()) as { access_token: string }).access_token;
    const all: string[] = [];
    let sawDebug = false;
    // Every command with the valid token; a cross-section with IMDS tokens and with the forged one.
    const SOME = COMMANDS.filter((a) => a.includes("json") || a.includes("sarif") || a[0] === "apply" || a[0] === "probe");
    for (const token of [valid, undefined, PLANTED_JWT]) {
      for (const args of token === valid ? COMMANDS : SOME) {
        const r = await cli(args, token ? { AZURE_ACCESS_TOKEN: token } : {});
        const arm = !["whoami", "probe"].includes(args[0]);
        // probe: 4, the issuer has no such record (an answer that went through the key).
        if (args[0] === "probe") expect([0, 4], `${args.join(" ")}: ${r.output.slice(-400)}`).toContain(r.code);
        else if (token !== PLANTED_JWT && arm) expect([0, 2, 3], `${args.join(" ")}: ${r.output.slice(-400)}`).toContain(r.code);
        if (token === PLANTED_JWT && arm) expect(r.code, args.join(" ")).toBe(1); // refused with ARM's 401
        sawDebug ||= r.output.includes("[stackwarden]") && /TransparentDataEncryptions_Get GET http/.test(r.output);
        all.push(`$ ${args.join(" ")}\n${r.output}`);
      }
    }
    expect(sawDebug).toBe(true);
    const { readFileSync, readdirSync } = await import("node:fs");
    for (const f of readdirSync(work).filter((n) => n.startsWith("report."))) all.push(readFileSync(join(work, f), "utf8"));
    expect(readdirSync(work).filter((n) => n.startsWith("report."))).toHaveLength(5);
    // Every file of the evidence bundle: no secret, no token, no probe parameter, no principal's id.
    const bundle = readdirSync(join(work, "bundle"), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"));
    expect(bundle.length).toBeGreaterThanOrEqual(8);
    const claims = JSON.parse(Buffer.from(valid.split(".")[1], "base64url").toString("utf8")) as { oid?: string };
    expect(claims.oid).toMatch(/\S/);
    expectClean(bundle.join("\n"), [...planted, valid, "ADMN-0001", "A Student", claims.oid!]);
    all.push(...bundle);
    emulator.child.kill("SIGTERM");
    await emulator.exited;
    all.push(emulator.out(), emulator.err());
    for (const f of readdirSync(stateDir)) all.push(readFileSync(join(stateDir, f), "utf8"));
    const text = all.join("\n");
    expect(text).toContain("[stackwarden]"); // the debug log was on
    expectClean(text, [...planted, valid]);
  }, 240_000);
});
