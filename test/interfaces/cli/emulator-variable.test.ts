import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ESTATE } from "../../../src/emulator/default-estate";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import { APISETU_PREFIX } from "../../../src/emulator/services/certificates/local";
import { GEOCODING_PREFIX } from "../../../src/emulator/services/geocoding/geocoding-local";
import { BINARY_ANALYSIS_PREFIX } from "../../../src/emulator/services/binary-analysis/binary-analysis-local";
import { main } from "../../../src/interfaces/cli/main";
import type { CommandIO } from "../../../src/interfaces/cli/command-io";
import { EMULATOR_KEY, emulatorEnvironment, endpointSettingName, serviceSetting } from "../../../src/platform/settings/emulator-settings";
import { apisetuSettingsFromEnv } from "../../../src/services/certificates/settings";
import { binaryAnalysisEndpointFromEnv, endpointsFromEnv, geocodingSettingsFromEnv } from "../../../src/platform/settings/endpoints";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";

/** Runs the CLI in-process in the project directory with exactly `env` (PATH aside): no variable the test does not name. */
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

let t: TestEmulator;
const probeDir = mkdtempSync(join(tmpdir(), "sw-emulator-var-"));

beforeAll(async () => {
  t = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
});
afterAll(async () => {
  await t?.close();
  rmSync(probeDir, { recursive: true, force: true });
});

describe("STACKWARDEN_EMULATOR alone points every command at the emulator (the dev stack, as the README documents the exit codes)", () => {
  // Each with its documented exit code on the default estate: two databases to encrypt (plan and
  // drift 2, check 3 for sql-tde-enabled), probes that pass, clean artifacts, everything placed.
  const cases: [string, string[], number][] = [
    ["plan", ["plan", "--stack", "dev"], 2],
    ["drift", ["drift", "--stack", "dev"], 2],
    ["probe", ["probe", "--stack", "dev", "--probe-dir", probeDir], 0],
    ["check", ["check", "--stack", "dev", "--probe-dir", probeDir], 3],
    ["where", ["where", "--stack", "dev"], 0],
    ["scan --stack dev", ["scan", "--stack", "dev"], 0],
    ["inventory", ["inventory", "--stack", "dev", "--output", "json"], 0],
    ["whoami", ["whoami"], 0],
  ];
  for (const [name, argv, code] of cases) {
    it(`${name} exits ${code}`, async () => {
      const r = await run(argv, { STACKWARDEN_EMULATOR: t.url });
      expect(r.code, `${r.out}\n${r.err}`).toBe(code);
    });
  }

  it("check judges every rule from the emulator's services: the probes just run, the artifacts, the placements", async () => {
    const r = await run(["check", "--stack", "dev", "--probe-dir", probeDir, "--output", "json"], { STACKWARDEN_EMULATOR: t.url });
    const report = JSON.parse(r.out) as { findings: { ruleId: string; verdict: string }[] };
    const verdicts = (rule: string) => new Set(report.findings.filter((f) => f.ruleId === rule).map((f) => f.verdict));
    expect(verdicts("post-deploy-probes")).toEqual(new Set(["pass"]));
    expect(verdicts("artifact-signature-clean")).toEqual(new Set(["pass"]));
    expect(verdicts("data-residency")).toEqual(new Set(["pass"]));
  });

  it("--emulator URL on the command does the same for one run, and whoami reads the emulator's IMDS", async () => {
    const plan = await run(["plan", "--stack", "dev", "--emulator", t.url], {});
    expect(plan.code, plan.err).toBe(2);
    const before = await run(["--emulator", t.url, "whoami", "--output", "json"], {});
    expect(before.code, before.err).toBe(0);
    expect(JSON.parse(before.out)).toMatchObject({ credential: { id: "ManagedIdentityCredential" }, endpoint: `${t.url}/metadata` });
  });

  it("a per-service variable still overrides it, and a failure there names that variable", async () => {
    const r = await run(["where", "--stack", "dev"], {
      STACKWARDEN_EMULATOR: t.url,
      STACKWARDEN_GEOCODING_ENDPOINT: "http://127.0.0.1:9/geocoding",
    });
    expect(r.code).toBe(1);
    expect(r.err).toContain("http://127.0.0.1:9");
    expect(r.err).toContain("STACKWARDEN_GEOCODING_ENDPOINT");
  });

  it("a bad URL is one line naming the variable, or the flag", async () => {
    const v = await run(["plan", "--stack", "dev"], { STACKWARDEN_EMULATOR: "127.0.0.1 port 4000" });
    expect(v.code).toBe(1);
    expect(v.err).toMatch(/^stackwarden: SW_SETTING_INVALID: STACKWARDEN_EMULATOR: "127.0.0.1 port 4000" is not a valid URL/);
    const f = await run(["plan", "--stack", "dev", "--emulator", "ftp://127.0.0.1:4000"], {});
    expect(f.code).toBe(1);
    expect(f.err).toMatch(/^stackwarden: SW_SETTING_INVALID: --emulator: "ftp:" URLs are not supported/);
  });
});

describe("what STACKWARDEN_EMULATOR stands for", () => {
  const url = "http://127.0.0.1:4000";

  it("every service at its path on the emulator's one port (the paths the emulator serves), with a key it accepts", () => {
    const env = { STACKWARDEN_EMULATOR: `${url}/` };
    expect(endpointsFromEnv(env)).toEqual({ arm: url, imds: `${url}/metadata` });
    expect(binaryAnalysisEndpointFromEnv(env)).toBe(`${url}${BINARY_ANALYSIS_PREFIX}`);
    expect(geocodingSettingsFromEnv(env)).toEqual({ endpoint: `${url}${GEOCODING_PREFIX}`, apiKey: EMULATOR_KEY });
    expect(apisetuSettingsFromEnv(env)).toMatchObject({
      endpoint: `${url}${APISETU_PREFIX}`,
      apiKey: EMULATOR_KEY,
      clientId: EMULATOR_KEY,
    });
  });

  it("a service's own variable wins, and the emulator's key never goes to a service set elsewhere", () => {
    const env = {
      STACKWARDEN_EMULATOR: url,
      STACKWARDEN_GEOCODING_ENDPOINT: "https://services.gisgraphy.com",
      STACKWARDEN_APISETU_API_KEY: "mine",
    };
    expect(geocodingSettingsFromEnv(env)).toEqual({ endpoint: "https://services.gisgraphy.com", apiKey: undefined });
    expect(apisetuSettingsFromEnv(env)).toMatchObject({ endpoint: `${url}/apisetu`, apiKey: "mine", clientId: EMULATOR_KEY });
  });

  it("names what set each endpoint: the variable, STACKWARDEN_EMULATOR, --emulator or the default", () => {
    expect(endpointSettingName({ STACKWARDEN_ARM_ENDPOINT: url }, "STACKWARDEN_ARM_ENDPOINT")).toBe("STACKWARDEN_ARM_ENDPOINT");
    expect(endpointSettingName({ STACKWARDEN_EMULATOR: url }, "STACKWARDEN_ARM_ENDPOINT")).toBe("STACKWARDEN_EMULATOR");
    expect(endpointSettingName({ STACKWARDEN_EMULATOR: url, STACKWARDEN_EMULATOR_FROM_FLAG: "1" }, "STACKWARDEN_IMDS_ENDPOINT")).toBe(
      "--emulator",
    );
    expect(endpointSettingName({}, "STACKWARDEN_GEOCODING_ENDPOINT")).toBe("the default of STACKWARDEN_GEOCODING_ENDPOINT");
    expect(serviceSetting({ STACKWARDEN_EMULATOR: "  " }, "STACKWARDEN_ARM_ENDPOINT")).toBeUndefined();
  });

  it("emulatorEnvironment leaves only STACKWARDEN_EMULATOR to point at it (npm start's embedded run), keys kept", () => {
    const env = emulatorEnvironment(
      { STACKWARDEN_ARM_ENDPOINT: "https://management.azure.com", STACKWARDEN_APISETU_API_KEY: "k", HOME: "/h" },
      url,
    );
    expect(env).toEqual({ STACKWARDEN_EMULATOR: url, STACKWARDEN_APISETU_API_KEY: "k", HOME: "/h" });
  });
});
