import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireStackLock } from "../../../src/domain/reconcile/stack-lock";
import { reportError } from "../../../src/interfaces/cli/cli-error";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { FileLockStore } from "../../../src/platform/state/files/file-lock-store";
import { deadUrl } from "../../helpers/dead-url";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { capturingIO, runCli, runCliWith, stackDir, type CliRun } from "./cli-harness";
import { thisProcess } from "../../../src/platform/process-identity";

// Every error the CLI ends with is one stderr line that starts with its stable code
// (`stackwarden: SW_CODE: message`), exits with the catalogue's exit code, and, where the command has
// `--output json`, is also the one JSON document on stdout.

const SUB = "00000000-0000-0000-0000-000000000000";
const STACK = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n    - { resourceGroup: rg, server: s1, database: a, transparentDataEncryption: Enabled }\n`;

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({
    seed: seedFromYaml(
      "sql:\n  servers:\n    - { name: s1, resourceGroup: rg, databases: [{ name: a, transparentDataEncryption: Disabled }] }\n",
    ),
  });
});
afterAll(() => t?.close());

/** The one error line of a run: its code and message. */
function errorOf(r: CliRun, prefix = "stackwarden"): { code: string; message: string } {
  const lines = r.err.split("\n");
  expect(lines, r.err).toHaveLength(1);
  const m = new RegExp(`^${prefix}: (SW_[A-Z_]+): (.+)$`).exec(lines[0]);
  expect(m, lines[0]).not.toBeNull();
  return { code: m![1], message: m![2] };
}

/** The run's stdout is exactly one `{"error":…}` document repeating its error line. */
function expectJsonError(r: CliRun, prefix = "stackwarden"): void {
  expect(r.out.split("\n"), r.out).toHaveLength(1);
  expect(JSON.parse(r.out)).toEqual({ error: errorOf(r, prefix) });
}

const inProject = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  runCliWith(argv, { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, ...env } });

describe("a stack file that is not there: SW_STACK_NOT_FOUND", () => {
  it("plan --stack nope: one line naming the file and the stacks there; the same as JSON with --output json", async () => {
    const text = await inProject(["plan", "--stack", "nope"]);
    expect(text.code).toBe(1);
    expect(text.out).toBe("");
    expect(text.err).toBe("stackwarden: SW_STACK_NOT_FOUND: stacks/Pulumi.nope.yaml: stack file not found (stacks here: dev)");
    const json = await inProject(["plan", "--stack", "nope", "--output", "json"]);
    expect([json.code, json.err]).toEqual([1, text.err]);
    expectJsonError(json);
  });

  it("check --format json (the alias of --output) answers in JSON too", async () => {
    const r = await inProject(["check", "--stack", "nope", "--format", "json"]);
    expect(errorOf(r).code).toBe("SW_STACK_NOT_FOUND");
    expectJsonError(r);
  });
});

describe("an endpoint nothing answers at: SW_ENDPOINT_UNREACHABLE", () => {
  it("plan against dead endpoints: one line naming the endpoint and what set it; JSON with --output json", async () => {
    const dead = await deadUrl();
    const env = { STACKWARDEN_ARM_ENDPOINT: dead, STACKWARDEN_IMDS_ENDPOINT: `${dead}/metadata` };
    const text = await inProject(["plan", "--stack", "dev"], env);
    expect(text.code).toBe(1);
    expect(text.out).toBe("");
    const e = errorOf(text);
    expect(e.code).toBe("SW_ENDPOINT_UNREACHABLE");
    expect(e.message).toContain(`${dead}/metadata (set by STACKWARDEN_IMDS_ENDPOINT)`);
    const json = await inProject(["plan", "--stack", "dev", "--output", "json"], env);
    expect(json.code).toBe(1);
    expect(errorOf(json).code).toBe("SW_ENDPOINT_UNREACHABLE");
    expectJsonError(json);
  });
});

describe("STACKWARDEN_EMULATOR naming no running emulator: SW_EMULATOR_URL", () => {
  it("plan against a dead emulator: one line naming the variable, its value and what to do; JSON with --output json", async () => {
    const dead = await deadUrl();
    const text = await inProject(["plan", "--stack", "dev"], { STACKWARDEN_EMULATOR: dead });
    expect(text.code).toBe(1);
    expect(text.out).toBe("");
    const e = errorOf(text);
    expect(e.code).toBe("SW_EMULATOR_URL");
    expect(e.message).toMatch(new RegExp(`^STACKWARDEN_EMULATOR=${dead}: nothing listens at .* is the emulator running\\?`));
    const json = await inProject(["plan", "--stack", "dev", "--output", "json"], { STACKWARDEN_EMULATOR: dead });
    expect(json.code).toBe(1);
    expect(errorOf(json).code).toBe("SW_EMULATOR_URL");
    expectJsonError(json);
  });
});

describe("a stack locked by another process: SW_LOCK_HELD", () => {
  it("apply fails at once in one line naming the holder; nothing is changed", async () => {
    const dir = stackDir({ "Pulumi.held.yaml": STACK });
    const lock = await acquireStackLock(new FileLockStore(join(dir, ".stackwarden", "locks")), {
      stack: "held",
      command: "watch",
      holderProcess: thisProcess(),
    });
    try {
      const r = await runCli(["apply", "--config", "Pulumi.held.yaml", "--yes"], t.url, dir);
      expect(r.code).toBe(1);
      const e = errorOf(r);
      expect(e.code).toBe("SW_LOCK_HELD");
      expect(e.message).toMatch(new RegExp(`^stack held is locked by pid ${process.pid} on host \\S+ since \\S+ \\(watch, `));
    } finally {
      await lock.release();
    }
  });
});

describe("commander's own errors: SW_USAGE, in today's one-line form", () => {
  it("an unknown option names the command's help; with --output json, JSON too", async () => {
    const r = await inProject(["plan", "--stack", "dev", "--bogus", "--output", "json"]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("stackwarden plan: SW_USAGE: unknown option '--bogus' (see stackwarden plan --help)");
    expectJsonError(r, "stackwarden plan");
  });

  it("a bad value and an unknown command: one line each, no JSON where none was asked for", async () => {
    const bad = await inProject(["plan", "--stack", "dev", "--output", "xml"]);
    expect([bad.code, bad.out]).toEqual([1, ""]);
    expect(bad.err).toMatch(
      /^stackwarden plan: SW_USAGE: option '--output <format>' argument 'xml' is invalid\. .* \(see stackwarden plan --help\)$/,
    );
    const unknown = await inProject(["nope"]);
    expect([unknown.code, unknown.out, unknown.err]).toEqual([1, "", "stackwarden: SW_USAGE: unknown command 'nope' (see --help)"]);
  });
});

describe("other codes the CLI ends with", () => {
  it("an apply no one can confirm: SW_NOT_CONFIRMED, nothing read", async () => {
    const before = t.emu.stats.total;
    const r = await runCli(["apply", "--config", "Pulumi.s.yaml"], t.url, stackDir({ "Pulumi.s.yaml": STACK }));
    expect(r.code).toBe(1);
    expect(errorOf(r).code).toBe("SW_NOT_CONFIRMED");
    expect(t.emu.stats.total).toBe(before);
  });

  it("lock break without --yes: SW_NOT_CONFIRMED, in JSON too with --output json", async () => {
    const r = await runCli(["lock", "break", "--stack", "s", "--output", "json"], t.url, stackDir({ "Pulumi.s.yaml": STACK }));
    expect(r.code).toBe(1);
    expect(errorOf(r)).toMatchObject({
      code: "SW_NOT_CONFIRMED",
      message: expect.stringMatching(/^refusing to break the lock of stack s without --yes/),
    });
    expectJsonError(r);
  });

  it("a stack file that does not validate: SW_CONFIG_INVALID at its file, line and column", async () => {
    const r = await runCli(
      ["plan", "--config", "Pulumi.s.yaml", "--output", "json"],
      t.url,
      stackDir({ "Pulumi.s.yaml": STACK.replace("Enabled", "On") }),
    );
    expect(errorOf(r).code).toBe("SW_CONFIG_INVALID");
    expect(errorOf(r).message).toMatch(/^Pulumi\.s\.yaml:4:\d+: config\.stackwarden:databases\[0\]\.transparentDataEncryption: /);
    expectJsonError(r);
  });

  it("a bug: SW_INTERNAL with its class name, one line, no stack trace", () => {
    const io = capturingIO({ cwd: PROJECT_ROOT });
    expect(reportError(io, new TypeError("cannot read properties of undefined (reading 'x')\n    at f (x.js:1:1)"), { json: true })).toBe(
      1,
    );
    const r = io.result(io.exitCode);
    expect(r.err).toBe("stackwarden: SW_INTERNAL: TypeError: cannot read properties of undefined (reading 'x') at f (x.js:1:1)");
    expectJsonError(r);
  });

  it("a file the system refuses: SW_IO_FAILED with its errno; a port taken: SW_ADDRESS_IN_USE", () => {
    const io = capturingIO({ cwd: PROJECT_ROOT });
    const eacces = Object.assign(new Error("EACCES: permission denied, open '/x/report.sarif'"), {
      code: "EACCES",
      syscall: "open",
      path: "/x/report.sarif",
    });
    reportError(io, eacces);
    reportError(
      io,
      Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:4000"), { code: "EADDRINUSE", syscall: "listen" }),
    );
    expect(io.result(1).err.split("\n")).toEqual([
      "stackwarden: SW_IO_FAILED: EACCES: permission denied, open '/x/report.sarif'",
      "stackwarden: SW_ADDRESS_IN_USE: listen EADDRINUSE: address already in use 127.0.0.1:4000",
    ]);
  });
});
