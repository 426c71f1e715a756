import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorHint } from "../../../src/clients/emulator-hint";
import { DEFAULT_ESTATE } from "../../../src/emulator/default-estate";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import { subscribeRequestEvents } from "../../../src/platform/http/request-events";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { cleanShellEnv, requireCompiledCli, runCliProcess, type CommandResult } from "../../helpers/cli-process";
import { deadUrl } from "../../helpers/dead-url";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCliWith } from "./cli-harness";

// Issue 34, item 4: a wrong STACKWARDEN_EMULATOR (a path after the port, https for the emulator's
// plain http, a port nothing listens on, another service) is named as such, in one line, before any
// credential is tried: not a credential chain's story after its retries. The CLI runs as users run
// it (`node bin/stackwarden.js`) against a real emulator.

/** Words of the credential story none of these lines may tell. */
const CREDENTIAL_WORDS = /credential|AZURE_|az login|managed identity|IMDS|metadata|token/i;

/** The goal is 2 s; a loaded 2-core machine gets headroom (each run's time is in the failure message). */
const WITHIN_MS = 5_000;

let t: TestEmulator;
let other: Server;
let otherUrl: string;
beforeAll(async () => {
  requireCompiledCli();
  t = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
  // A web server that is not the emulator: a page for every path.
  other = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>a dashboard</html>"));
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => other?.close(resolve));
  await t?.close();
});

/** `stackwarden plan --stack dev` in a child process, in a clean shell with STACKWARDEN_EMULATOR=`url`. */
function planWith(url: string): Promise<CommandResult> {
  return runCliProcess(["plan", "--stack", "dev"], {
    cwd: PROJECT_ROOT,
    env: cleanShellEnv({ STACKWARDEN_EMULATOR: url }),
    timeoutMs: 60_000,
  });
}

/** One SW_EMULATOR_URL line naming the variable and its value, exit 1, quickly, and nothing of credentials. */
function expectNamedAsWrongUrl(r: CommandResult, url: string): string {
  const said = `exit ${r.code} after ${r.ms} ms:\n${r.output}`;
  expect(r.code, said).toBe(1);
  expect(r.stdout, said).toBe("");
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines, said).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^stackwarden: SW_EMULATOR_URL: STACKWARDEN_EMULATOR=${url.replace(/[.]/g, "\\.")}: `));
  expect(lines[0]).not.toMatch(CREDENTIAL_WORDS);
  expect(r.ms, said).toBeLessThan(WITHIN_MS);
  return lines[0];
}

describe("STACKWARDEN_EMULATOR that leads to no emulator: one line, within seconds, no credential named (the real CLI)", () => {
  it("a path after the port: the emulator's 404, and the fix is to drop the path (it answers at the port alone)", async () => {
    const line = expectNamedAsWrongUrl(await planWith(`${t.url}/api`), `${t.url}/api`);
    expect(line).toContain(`GET ${t.url}/api/_emulator/stats answered HTTP 404`);
    expect(line).toContain(`the emulator answers at ${t.url}: drop the path, use ${t.url} (export STACKWARDEN_EMULATOR=${t.url})`);
  });

  it("https:// for the emulator's plain http: the TLS failure, and the fix is http://", async () => {
    const https = t.url.replace(/^http:/, "https:");
    const line = expectNamedAsWrongUrl(await planWith(https), https);
    expect(line).toMatch(/the TLS handshake failed \(ERR_SSL_WRONG_VERSION_NUMBER\)/);
    expect(line).toContain(`the emulator there serves plain http; use ${t.url} (export STACKWARDEN_EMULATOR=${t.url})`);
  });

  it("a port nothing listens on: is the emulator running? and how to start it there", async () => {
    const dead = await deadUrl();
    const line = expectNamedAsWrongUrl(await planWith(dead), dead);
    const port = new URL(dead).port;
    expect(line).toContain(`nothing listens at 127.0.0.1:${port} (ECONNREFUSED): is the emulator running?`);
    expect(line).toContain(`npx stackwarden emulator --port ${port}`);
  });
});

describe("the same check, in-process", () => {
  const inProcess = (argv: string[], env: NodeJS.ProcessEnv) =>
    runCliWith(argv, { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, ...env } });

  it("another service at the URL: something answers, but not the emulator", async () => {
    const r = await inProcess(["plan", "--stack", "dev"], { STACKWARDEN_EMULATOR: otherUrl });
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `stackwarden: SW_EMULATOR_URL: STACKWARDEN_EMULATOR=${otherUrl}: GET ${otherUrl}/_emulator/stats: HTTP 200 with text/html, not the emulator's statistics: no stackwarden emulator answers at this URL; set it to the URL \`stackwarden emulator\` prints first (scheme, host and port, no path)`,
    );
  });

  it("--emulator names the flag, and whoami (no stack) is checked the same way", async () => {
    const r = await inProcess(["whoami", "--emulator", `${t.url}/api`], {});
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      new RegExp(
        `^stackwarden: SW_EMULATOR_URL: --emulator ${t.url.replace(/[.]/g, "\\.")}/api: .* use ${t.url.replace(/[.]/g, "\\.")} \\(--emulator `,
      ),
    );
    expect(r.err).not.toMatch(CREDENTIAL_WORDS);
  });

  it("a right URL costs one probe for the whole process, however many commands run; the emulator's counts are untouched", async () => {
    const own = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
    const probes: number[] = [];
    const stop = subscribeRequestEvents((e) => e.operation === "Emulator_Probe" && probes.push(e.status));
    try {
      for (let i = 0; i < 3; i++) {
        const r = await inProcess(["plan", "--stack", "dev"], { STACKWARDEN_EMULATOR: own.url });
        expect(r.code, r.err).toBe(2);
      }
      expect(probes).toEqual([200]);
      // The admin route is outside the counts tests and benches read.
      expect(own.emu.stats.byRoute).not.toHaveProperty("GET /_emulator/stats");
      expect(Object.keys(own.emu.stats.byRoute).some((k) => k.includes("_emulator"))).toBe(false);
    } finally {
      stop();
      await own.close();
    }
  });

  it("every service overridden by its own variable: the emulator's URL is not used, so not checked", async () => {
    const dead = await deadUrl();
    const r = await inProcess(["plan", "--stack", "dev"], {
      STACKWARDEN_EMULATOR: dead,
      STACKWARDEN_ARM_ENDPOINT: t.url,
      STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata`,
      STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: "embedded",
      STACKWARDEN_GEOCODING_ENDPOINT: `${t.url}/geocoding`,
      STACKWARDEN_APISETU_ENDPOINT: `${t.url}/apisetu`,
    });
    expect(r.code, r.err).toBe(2);
  });
});

describe("no emulator variable, credentials failing, an emulator answering on the README's port", () => {
  it("the hint names the emulator's URL and the line to export; none when nothing answers or a variable points elsewhere", async () => {
    expect(await emulatorHint({}, t.url)).toBe(
      `an emulator answers at ${t.url}: export STACKWARDEN_EMULATOR=${t.url} to use it (a variable set without export is not passed to npx)`,
    );
    expect(await emulatorHint({}, await deadUrl())).toBeUndefined();
    expect(await emulatorHint({}, otherUrl)).toBeUndefined();
    expect(await emulatorHint({ STACKWARDEN_ARM_ENDPOINT: "https://management.azure.com" }, t.url)).toBeUndefined();
    expect(await emulatorHint({ STACKWARDEN_EMULATOR: t.url }, t.url)).toBeUndefined();
  });
});
