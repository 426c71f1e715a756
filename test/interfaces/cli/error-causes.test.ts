import { execFile } from "node:child_process";
import { openStateStores } from "../../../src/platform/state/open-state";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatherFacts } from "../../../src/domain/facts/gather";
import { defineFactKind } from "../../../src/domain/facts/fact-kind";
import { registerFactKind } from "../../../src/domain/facts/registry";
import { loadStackFile } from "../../../src/usecases/stack-file";
import { stackFilePath } from "../../../src/platform/files/stack-files";
import { newClientSet } from "../../../src/clients/client-set";
import type { CommandIO } from "../../../src/interfaces/cli/command-io";
import { main } from "../../../src/interfaces/cli/main";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { DEFAULT_ESTATE } from "../../../src/emulator/default-estate";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import { deadUrl } from "../../helpers/dead-url";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";

// Errors name their cause: a refused connection names the endpoint and the variable or flag that
// set it (never credentials, when the endpoint is down); a service endpoint a stack needs that is
// not set is named before any request; a retry says what it retries, on a terminal.

async function run(argv: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    isTTY: false,
    cwd: PROJECT_ROOT,
    exitCode: 0,
    env: { PATH: process.env.PATH, ...env },
  };
  const code = await main(argv, io);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** What an error about a down endpoint must never say: it is not about credentials. */
function expectNotBlamingCredentials(line: string): void {
  expect(line).not.toMatch(/credential|AZURE_ACCESS_TOKEN|az login|outside Azure/i);
}

let dead: string;
let t: TestEmulator;
beforeAll(async () => {
  dead = await deadUrl();
  t = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
});
afterAll(() => t?.close());

describe("the emulator is not running", () => {
  // STACKWARDEN_EMULATOR (or --emulator) is checked before any credential is tried: SW_EMULATOR_URL
  // naming the setting and its value. Per-service variables are not: the endpoint's own refusal names them.
  const cases: [string, string[], Record<string, string>, string][] = [
    ["STACKWARDEN_EMULATOR", ["plan", "--stack", "dev"], {}, "STACKWARDEN_EMULATOR=DEAD"],
    ["--emulator", ["plan", "--stack", "dev", "--emulator", "DEAD"], {}, "--emulator DEAD"],
    [
      "the per-service variables",
      ["drift", "--stack", "dev"],
      { STACKWARDEN_ARM_ENDPOINT: "DEAD", STACKWARDEN_IMDS_ENDPOINT: "DEAD/metadata" },
      "DEAD/metadata (set by STACKWARDEN_IMDS_ENDPOINT)",
    ],
    ["STACKWARDEN_EMULATOR, whoami", ["whoami"], {}, "STACKWARDEN_EMULATOR=DEAD"],
    ["STACKWARDEN_EMULATOR, check of a stack with every kind of fact", ["check", "--stack", "dev"], {}, "STACKWARDEN_EMULATOR=DEAD"],
  ];
  for (const [name, argv, vars, names] of cases) {
    it(`${name}: one line naming ${names.replace("DEAD", "the URL")}, not credentials`, async () => {
      const env: Record<string, string> = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, v.replace("DEAD", dead)]));
      if (!("STACKWARDEN_ARM_ENDPOINT" in env) && !argv.includes("--emulator")) env.STACKWARDEN_EMULATOR = dead;
      const r = await run(
        argv.map((a) => (a === "DEAD" ? dead : a)),
        env,
      );
      expect(r.code).toBe(1);
      const lines = r.err.split("\n");
      expect(lines, r.err).toHaveLength(1);
      expect(lines[0]).toContain(names.replace("DEAD", dead));
      expect(lines[0]).toMatch(/ECONNREFUSED/);
      expect(lines[0]).toMatch(/is the emulator running( there)?\?/);
      expect(lines[0]).toMatch(names.includes("(set by") ? /SW_ENDPOINT_UNREACHABLE/ : /^stackwarden: SW_EMULATOR_URL: /);
      expectNotBlamingCredentials(lines[0]);
    });
  }

  it("with a static token, ARM's own refused connection names ARM's endpoint and its variable", async () => {
    const r = await run(["plan", "--stack", "dev"], { AZURE_ACCESS_TOKEN: "x", STACKWARDEN_ARM_ENDPOINT: dead });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`no response from ${dead} (set by STACKWARDEN_ARM_ENDPOINT) after 5 attempt(s)`);
    expect(r.err).toContain("is the emulator running there?");
  });

  it("an IMDS set apart from ARM (a laptop without IMDS) is one link of the chain that could not answer, and the chain goes on", async () => {
    const r = await run(["plan", "--stack", "dev"], {
      STACKWARDEN_ARM_ENDPOINT: t.url,
      STACKWARDEN_IMDS_ENDPOINT: `${dead}/metadata`,
      AZURE_TOKEN_CREDENTIALS: "ManagedIdentityCredential",
    });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /no Azure credential could get a token; tried in order: managed identity via IMDS at .*\(set by STACKWARDEN_IMDS_ENDPOINT\)/,
    );
  });
});

describe("a failed read stops the other reads of the same gathering", () => {
  it("the first failure cancels what the other kinds still wait for, and is the error", async () => {
    let sawAbort = false;
    registerFactKind(
      defineFactKind({
        key: "toyFailsAtOnce",
        title: "fails at once",
        scope: "database",
        gather: async () => {
          throw new Error("the first read failed");
        },
        fromResources: () => [],
      }),
    );
    registerFactKind(
      defineFactKind({
        key: "toyWaitsLong",
        title: "waits until cancelled",
        scope: "database",
        gather: (ctx) =>
          new Promise((_resolve, reject) => {
            const timer = setTimeout(() => reject(new Error("never cancelled")), 60_000);
            ctx.signal!.addEventListener("abort", () => {
              sawAbort = true;
              clearTimeout(timer);
              reject(new Error("cancelled"));
            });
          }),
        fromResources: () => [],
      }),
    );
    const stack = loadStackFile(stackFilePath("dev", PROJECT_ROOT), {}, PROJECT_ROOT);
    const gathering = gatherFacts(["toyWaitsLong", "toyFailsAtOnce"], {
      stack,
      stackName: "dev",
      clients: newClientSet({}),
      cwd: PROJECT_ROOT,
      state: await openStateStores({ cwd: PROJECT_ROOT, env: {} }),
      concurrency: 1,
      note: () => {},
      warn: () => {},
    });
    await expect(gathering).rejects.toThrow("the first read failed");
    expect(sawAbort).toBe(true);
  });
});

describe("a service endpoint the stack needs is named before any request", () => {
  it("check of a stack with stackwarden:residency and no geocoding setting: one line naming the variables and the stack's line, nothing sent", async () => {
    const before = t.emu.stats.total;
    const r = await run(["check", "--stack", "dev"], {
      STACKWARDEN_ARM_ENDPOINT: t.url,
      STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata`,
      STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${t.url}/binary-analysis/v1`,
    });
    expect(r.code).toBe(1);
    expect(r.err.split("\n")).toHaveLength(1);
    expect(r.err).toMatch(
      /^stackwarden: SW_SETTING_INVALID: stackwarden:residency \(stacks\/Pulumi\.dev\.yaml:\d+\) needs the geocoding service, but neither STACKWARDEN_GEOCODING_ENDPOINT nor STACKWARDEN_EMULATOR is set/,
    );
    expect(t.emu.stats.total).toBe(before);
  });

  it("where and geocode say the same", async () => {
    for (const argv of [
      ["where", "--stack", "dev"],
      ["geocode", "Dam 1, Amsterdam"],
    ]) {
      const r = await run(argv, { STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata` });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/needs the geocoding service, but neither STACKWARDEN_GEOCODING_ENDPOINT nor STACKWARDEN_EMULATOR is set/);
    }
  });
});

describe("a retry says what it retries, on a terminal", () => {
  /** Runs the compiled CLI under `script`, so its stderr is a terminal (a pty), as a person sees it. */
  function onTerminal(args: string, env: NodeJS.ProcessEnv): Promise<string> {
    const bin = join(PROJECT_ROOT, "bin", "stackwarden.js");
    return new Promise((resolve) => {
      execFile(
        "script",
        ["-qfec", `${process.execPath} ${bin} ${args}`, "/dev/null"],
        { cwd: PROJECT_ROOT, env, encoding: "utf8" },
        (_e, out) => resolve(out.replace(/\r/g, "")),
      );
    });
  }

  it("after the first failure: the operation, the cause, the endpoint and its setting; once, however many requests fail alike", async () => {
    const env = { PATH: process.env.PATH, AZURE_ACCESS_TOKEN: "x", STACKWARDEN_ARM_ENDPOINT: dead };
    const out = await onTerminal("plan --stack dev", env);
    const notices = out.split("\n").filter((l) => l.includes("retrying"));
    expect(notices, out).toEqual([
      // The dev stack's scope is discovered first: its first request is the servers' list.
      `stackwarden: Servers_List got ECONNREFUSED from ${dead} (set by STACKWARDEN_ARM_ENDPOINT); retrying (up to 5 attempts in 60 s)`,
    ]);
    expect(out.indexOf("retrying")).toBeLessThan(out.indexOf("failed: ECONNREFUSED"));
  });

  it("not in a pipe: the one error line only", async () => {
    const err = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [join(PROJECT_ROOT, "bin", "stackwarden.js"), "plan", "--stack", "dev"],
        { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, AZURE_ACCESS_TOKEN: "x", STACKWARDEN_ARM_ENDPOINT: dead }, encoding: "utf8" },
        (_e, _out, stderr) => resolve(stderr),
      );
    });
    expect(err.trim().split("\n")).toHaveLength(1);
    expect(err).not.toContain("retrying");
  });
});
