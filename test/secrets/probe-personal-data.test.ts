import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireCompiledCli, runCliProcess, startEmulatorProcess, type EmulatorProcess } from "../helpers/cli-process";

/**
 * Personal data planted in a probe's environment (names, certificate and admission numbers), and the
 * API Setu key and client id, must appear in no stdout or stderr of `stackwarden probe` (with STACKWARDEN_LOG=debug), in no report
 * (--output json and table), in the results kept for check, and in nothing the emulator prints, whether the probe finds its
 * record or not. Both are real processes of the compiled CLI.
 */
const PLANTED = {
  TC_ADMN: "PLANTED-ADMN-7731",
  TC_NAME: "Zorvath Plantedquill",
  ID_CERT: "PLANTEDCERT000042",
  ID_NAME: "Ysolde Plantedmarsh",
  MISS_ADMN: "PLANTED-MISSING-5150",
  MISS_NAME: "Quenby Plantedabsent",
  API_KEY: "planted-apisetu-key-0f9e",
  CLIENT_ID: "planted-apisetu-client-6a2c",
};
/** The key variables' values: the API key, and the client id (a credential too). */
const KEYS = [PLANTED.API_KEY, PLANTED.CLIENT_ID];
const PERSONAL = Object.entries(PLANTED)
  .filter(([k]) => k !== "API_KEY" && k !== "CLIENT_ID")
  .map(([, v]) => v);

const dir = mkdtempSync(join(tmpdir(), "stackwarden-probe-pii-"));
const stateDir = join(dir, "state");
let emulator: EmulatorProcess;
let url = "";

const run = (args: string[], env: NodeJS.ProcessEnv) => runCliProcess(args, { cwd: dir, env });

beforeAll(async () => {
  requireCompiledCli();
  writeFileSync(
    join(dir, "seed.yaml"),
    `certificates:
  records:
    - { doctype: trcer, issueDate: 2021-07-30, parameters: { ADMN_NO: ${PLANTED.TC_ADMN}, FullName: ${PLANTED.TC_NAME} } }
    - doctype: govid
      issueDate: 2023-08-21
      parameters: { CERT_NO: ${PLANTED.ID_CERT}, FullName: ${PLANTED.ID_NAME} }
      holder: { dob: 01-01-1990, motherName: M, swd: S, swdIndicator: D, category: GEN }
`,
  );
  writeFileSync(
    join(dir, "Pulumi.pii.yaml"),
    `config:
  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000
  stackwarden:probes:
    - { name: tc, issuer: lawcollegeandaman, doctype: trcer, parameters: { ADMN_NO: "\${env:TC_ADMN}", FullName: "\${env:TC_NAME}" } }
    - { name: id, issuer: swavlambancard, doctype: govid, format: xml, parameters: { CERT_NO: "\${env:ID_CERT}", FullName: "\${env:ID_NAME}" } }
    - { name: id-pdf, issuer: swavlambancard, doctype: govid, parameters: { CERT_NO: "\${env:ID_CERT}", FullName: "\${env:ID_NAME}" } }
    - { name: missing, issuer: lawcollegeandaman, doctype: trcer, parameters: { ADMN_NO: "\${env:MISS_ADMN}", FullName: "\${env:MISS_NAME}" } }
`,
  );
  emulator = await startEmulatorProcess(["--port", "0", "--seed", join(dir, "seed.yaml"), "--state", stateDir], {
    cwd: dir,
    env: { ...process.env, STACKWARDEN_LOG: "debug" },
  });
  url = emulator.url;
});

afterAll(async () => {
  if (emulator && emulator.child.exitCode === null) {
    emulator.child.kill("SIGTERM");
    await emulator.exited;
  }
});

describe("personal data planted in a probe's environment", () => {
  it("appears in no output, report, log or emulator output", async () => {
    const env = {
      PATH: process.env.PATH,
      STACKWARDEN_LOG: "debug",
      STACKWARDEN_APISETU_ENDPOINT: `${url}/apisetu`,
      STACKWARDEN_APISETU_API_KEY: PLANTED.API_KEY,
      STACKWARDEN_APISETU_CLIENT_ID: PLANTED.CLIENT_ID,
      ...PLANTED,
    };
    const json = await run(["probe", "--config", "Pulumi.pii.yaml", "--output", "json"], env);
    const table = await run(["probe", "--config", "Pulumi.pii.yaml"], env);

    // The run did real work: three documents issued and checked, one 404, debug lines for each request.
    expect(json.code).toBe(4);
    const report = JSON.parse(json.stdout) as { summary: object; results: { name: string; outcome: string; error?: { code: string } }[] };
    expect(report.summary).toEqual({ probes: 4, passed: 3, failed: 1 });
    expect(report.results.find((r) => r.name === "missing")).toMatchObject({ outcome: "failed", error: { code: "record_not_found" } });
    expect(table.code).toBe(4);
    expect(table.stdout).toContain("HTTP 404 record_not_found: No record found");
    expect(json.stderr.match(/\[stackwarden\] .*certificate -> (200|404)/g)).toHaveLength(4);

    // Stop the emulator so everything it would print is in.
    emulator.child.kill("SIGTERM");
    await emulator.exited;

    const kept = readFileSync(join(dir, ".stackwarden", "probes", "pii.json"), "utf8");
    expect(JSON.parse(kept)).toMatchObject({ stack: "pii", command: "probe", results: expect.any(Array) });
    const surfaces = {
      "kept probe results (.stackwarden/probes/pii.json)": kept,
      "probe json stdout": json.stdout,
      "probe json stderr": json.stderr,
      "probe table stdout": table.stdout,
      "probe table stderr": table.stderr,
      "emulator stdout": emulator.out(),
      "emulator stderr": emulator.err(),
    };
    for (const [where, text] of Object.entries(surfaces)) {
      for (const value of [...PERSONAL, ...KEYS]) expect(text.includes(value), `${value} in ${where}:\n${text}`).toBe(false);
      // Case changes are no disguise either.
      for (const value of PERSONAL) expect(text.toLowerCase().includes(value.toLowerCase()), `${value} in ${where}`).toBe(false);
    }
    // The values that matched no record were not written to the emulator's state either.
    const state = readdirSync(stateDir)
      .map((f) => readFileSync(join(stateDir, f), "utf8"))
      .join("\n");
    expect(state.length).toBeGreaterThan(0);
    for (const value of [PLANTED.MISS_ADMN, PLANTED.MISS_NAME, ...KEYS]) expect(state).not.toContain(value);
  });
});
