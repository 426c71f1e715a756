import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanShellEnv, requireCompiledCli, runCliProcess, startEmulatorProcess, type EmulatorProcess } from "../../helpers/cli-process";

/** The foundation's commands, run as users run them: `node bin/stackwarden.js ...` in a child process. */
const dir = mkdtempSync(join(tmpdir(), "sw-cli-"));

/** `stackwarden args…` in a clean shell's environment (none of the variables that would change what the CLI does). */
const run = (args: string[], env: NodeJS.ProcessEnv = cleanShellEnv()) => runCliProcess(args, { cwd: dir, env, timeoutMs: 25_000 });

/** Asserts the CLI's error contract: exit 1, one stderr line, no stack trace, nothing on stdout. */
function expectOneLineError(r: { code: number | null; stdout: string; stderr: string }): string {
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  const lines = r.stderr.split("\n").filter((l) => l.length > 0);
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s{4}at /);
  expect(r.stderr).not.toContain("    at ");
  return lines[0];
}

let emulator: EmulatorProcess;
let url: string;

beforeAll(async () => {
  requireCompiledCli();
  emulator = await startEmulatorProcess(["--port", "0", "--fault-429", "0.3", "--fault-5xx", "0.3", "--retry-after-ms", "20"], {
    cwd: dir,
    env: cleanShellEnv(),
  });
  url = emulator.url;
});

afterAll(() => {
  if (emulator && emulator.child.exitCode === null && emulator.child.signalCode === null) emulator.child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("stackwarden emulator and whoami", () => {
  it("emulator --port 0 prints its base URL as the first stdout line", () => {
    expect(emulator.out().split("\n")[0]).toBe(url);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d{2,5}$/);
  });

  it("whoami shows the machine and its identity, through injected 429s and 503s", async () => {
    const env = cleanShellEnv({ STACKWARDEN_IMDS_ENDPOINT: `${url}/metadata` });
    const faultsBefore = ((await (await fetch(`${url}/_emulator/stats`)).json()) as { faultsInjected: number }).faultsInjected;
    for (let i = 0; i < 3; i++) {
      const r = await run(["whoami"], env);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Machine\s+stackwarden-runner \(Standard_D2s_v5, Linux, eastus, zone 1\)$/m);
      expect(r.stdout).toMatch(/^Identity\s+system-assigned, client id [0-9a-f-]{36}$/m);
      expect(r.stdout).toMatch(/^Tenant\s+[0-9a-f-]{36}$/m);
      expect(r.stdout).toMatch(/^Attested\s+pkcs7, signed by metadata\.azure\.com, nonce verified/m);
      expect(r.stdout).toContain(`${url}/metadata`);
    }
    const stats = (await (await fetch(`${url}/_emulator/stats`)).json()) as { faultsInjected: number };
    // The faults really happened: whoami succeeded by retrying through them.
    expect(stats.faultsInjected - faultsBefore).toBeGreaterThan(0);
  }, 40_000);

  it("whoami --output json prints parseable JSON with the token redacted", async () => {
    const r = await run(["whoami", "--output", "json"], cleanShellEnv({ STACKWARDEN_IMDS_ENDPOINT: `${url}/metadata` }));
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      endpoint: string;
      instance: { compute: { name: string } };
      identityInfo: { tenantId: string };
      attestedDocument: { encoding: string };
      token: Record<string, string>;
    };
    expect(doc.endpoint).toBe(`${url}/metadata`);
    expect(doc.instance.compute.name).toBe("stackwarden-runner");
    expect(doc.identityInfo.tenantId).toMatch(/^[0-9a-f-]{36}$/);
    expect(doc.attestedDocument.encoding).toBe("pkcs7");
    expect(doc.token.access_token).toBe("REDACTED");
    expect(doc.token.token_type).toBe("Bearer");
    expect(r.stdout).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./);
  }, 30_000);

  it("whoami --output with an unknown format is a one-line error", async () => {
    const line = expectOneLineError(
      await run(["whoami", "--output", "yaml"], cleanShellEnv({ STACKWARDEN_IMDS_ENDPOINT: `${url}/metadata` })),
    );
    expect(line).toContain('expected one of table, json, got "yaml"');
  });

  it("a bad STACKWARDEN_IMDS_ENDPOINT is one line naming the variable", async () => {
    const line = expectOneLineError(await run(["whoami"], cleanShellEnv({ STACKWARDEN_IMDS_ENDPOINT: "not a url" })));
    expect(line).toBe(
      'stackwarden: SW_SETTING_INVALID: STACKWARDEN_IMDS_ENDPOINT: "not a url" is not a valid URL; expected e.g. http://127.0.0.1:4000',
    );
  });

  it("an unknown flag is one line naming the flag", async () => {
    const line = expectOneLineError(await run(["whoami", "--bogus"]));
    expect(line).toContain("unknown option '--bogus'");
    expect(line).toMatch(/^stackwarden whoami: /);
  });

  it("a malformed --seed file is one line naming the file, line and column", async () => {
    const seed = join(dir, "broken-seed.yaml");
    writeFileSync(seed, "emulator:\n  pageSize: 5\nimds:\n  tenantId: t\n  bogus: [1\n");
    const line = expectOneLineError(await run(["emulator", "--port", "0", "--seed", seed]));
    expect(line).toMatch(
      new RegExp(`^stackwarden: SW_CONFIG_INVALID: ${seed.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:\\d+:\\d+: invalid YAML: `),
    );

    writeFileSync(seed, "imds:\n  tenantId: t\n  bogus: 1\n");
    expect(expectOneLineError(await run(["emulator", "--port", "0", "--seed", seed]))).toBe(
      `stackwarden: SW_CONFIG_INVALID: ${seed}:3:3: imds.bogus: unknown key`,
    );
  });

  it("a missing --seed file is one line naming it", async () => {
    const line = expectOneLineError(await run(["emulator", "--port", "0", "--seed", join(dir, "nope.yaml")]));
    expect(line).toBe(`stackwarden: SW_IO_FAILED: ${join(dir, "nope.yaml")}: cannot read the seed file (ENOENT)`);
  });

  it("the emulator exits 0 on SIGTERM", async () => {
    emulator.child.kill("SIGTERM");
    expect(await emulator.exited).toBe(0);
  });
});
