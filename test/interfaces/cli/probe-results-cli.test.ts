import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredProbeRun } from "../../../src/domain/probes/probe-results-store";
import { SqlClient } from "../../../src/services/sql/client";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { devEstate } from "../../services/certificates/certificates-kit";
import { runCliWith, stackDir } from "./cli-harness";

/**
 * The last probe run, from the commands that write it (`probe`, `apply --probe`) to `check`, which
 * judges it with `post-deploy-probes` in every format; and the exit codes of `apply --probe`. The
 * CLI runs in-process against an emulator serving the example estate, in a scratch directory
 * (so `.stackwarden/` lands there), with `--stack dev` read from the project.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
let t: TestEmulator;
let sql: SqlClient;
let dir: string;

const sarifSchema = JSON.parse(readFileSync(join(__dirname, "..", "..", "fixtures", "sarif", "sarif-schema-2.1.0.json"), "utf8")) as object;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validateSarif = ajv.compile(sarifSchema);

/** A stack on the example estate: one database, a probe that finds its record and one that does not. */
const BROKEN = (level?: "mandatory") => `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg-data, server: sql-prod-1, database: orders, transparentDataEncryption: Enabled }
${level ? `  stackwarden:policies:\n    post-deploy-probes: { enforcementLevel: ${level} }\n` : ""}  stackwarden:probes:
    - name: transfer-certificate
      issuer: lawcollegeandaman
      doctype: trcer
      parameters: { admissionNo: "\${env:TC_ADMN:-99123}", fullName: "\${env:TC_NAME:-Arun Ekka}" }
    - name: missing-record
      issuer: lawcollegeandaman
      doctype: trcer
      parameters: { admissionNo: "\${env:MISSING_ADMN:-99999}", fullName: "\${env:MISSING_NAME:-Nobody Here}" }
`;
/** The line and column of `- name: <probe>` in a stack text. */
const probeLine = (text: string, name: string) => ({
  line: text.split("\n").findIndex((l) => l.includes(`- name: ${name}`)) + 1,
  column: 7,
});

beforeAll(async () => {
  t = await startTestEmulator({ seed: devEstate() });
  sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
  dir = stackDir({ "Pulumi.broken.yaml": BROKEN(), "Pulumi.gate.yaml": BROKEN("mandatory") });
});
afterAll(async () => {
  await t?.close();
});

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  STACKWARDEN_ARM_ENDPOINT: t.url,
  STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint,
  STACKWARDEN_APISETU_ENDPOINT: `${t.url}/apisetu`,
  STACKWARDEN_APISETU_API_KEY: "results-test-key",
  STACKWARDEN_APISETU_CLIENT_ID: "results-test-client",
  // The dev stack ships job scripts (stackwarden:artifacts): check scans them on the emulator's service.
  STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${t.url}/binary-analysis/v1`,
  // The dev stack sets stackwarden:residency: check places its resources through the geocoding service.
  STACKWARDEN_GEOCODING_ENDPOINT: `${t.url}/geocoding`,
  ...extra,
});

const cli = (argv: string[], e: NodeJS.ProcessEnv = env(), cwd = dir) => runCliWith(argv, { cwd, env: e });

const stored = (stack: string, probeDir = join(dir, ".stackwarden", "probes")) =>
  JSON.parse(readFileSync(join(probeDir, `${stack}.json`), "utf8")) as StoredProbeRun;
const tde = async (database: string) =>
  (await sql.getTransparentDataEncryption({ subscriptionId: SUB, resourceGroup: "rg-data", server: "sql-prod-1", database })).properties
    ?.status;
const puts = () =>
  Object.entries(t.emu.stats.byRoute)
    .filter(([k]) => k.startsWith("PUT "))
    .reduce((n, [, v]) => n + v, 0);

interface CheckJson {
  notes: string[];
  findings: { ruleId: string; verdict: string; level: string; label: string; message: string; line?: number }[];
}
const probeFindings = (doc: CheckJson) => doc.findings.filter((f) => f.ruleId === "post-deploy-probes");

describe("check before any probe run", () => {
  it("post-deploy-probes has nothing to judge: every probe is not applicable, a note says why, the exit code is the other rules'", async () => {
    const r = await cli(["check", "--stack", "dev", "--output", "json"]);
    expect(r.code, r.err).toBe(3); // orders starts Disabled: sql-tde-enabled, mandatory
    const doc = JSON.parse(r.out) as CheckJson;
    expect(doc.notes).toEqual([
      "10 databases in scope: 5 listed, 5 discovered; 3 non-compliant (discovered and non-compliant: rg-data/sql-prod-2/billing)",
      "post-deploy-probes has no probe results to judge: .stackwarden/probes/dev.json does not exist yet (`stackwarden probe`, `apply --probe` and `npm start` write it)",
    ]);
    expect(probeFindings(doc).map((f) => [f.label, f.verdict])).toEqual([
      ["health-policy", "not-applicable"],
      ["disability-id-card", "not-applicable"],
      ["class-x-marksheet", "not-applicable"],
      ["transfer-certificate", "not-applicable"],
    ]);
    const table = await cli(["check", "--stack", "dev", "--show", "not-applicable"]);
    expect(table.out.split("\n")[1]).toBe(`  note: ${doc.notes[0]}`);
    // Probes without a result only say something is absent: one line for the rule, even with --show not-applicable.
    expect(table.out).toMatch(
      new RegExp(`N/A\\s+post-deploy-probes\\s+${probeFindings(doc).length} finding\\(s\\)\\s+no result yet: run \`stackwarden probe\``),
    );
  });
});

describe("apply --probe", () => {
  it("converges, then probes: every probe passes, exit 0; the results replace the stack's last run; check judges them", async () => {
    expect(await tde("orders")).toBe("Disabled");
    const r = await cli(["apply", "--stack", "dev", "--yes", "--probe", "--poll-interval", "50"]);
    expect(r.code, r.err).toBe(0);
    // orders and audit, and billing, which the dev stack's scope finds and may remediate.
    const applied = r.out.indexOf("Apply: 3 of 3 change(s) converged.");
    const probed = r.out.indexOf(`Probes of stack dev against ${t.url}/apisetu`);
    expect(applied).toBeGreaterThan(0);
    expect(probed).toBeGreaterThan(applied);
    expect(r.out).toContain("4 probe(s): 4 passed, 0 failed");
    expect(r.out.trimEnd().split("\n").at(-1)).toBe(
      "Probe results kept in .stackwarden/probes/dev.json (check judges them: post-deploy-probes).",
    );
    expect(await tde("orders")).toBe("Enabled");

    const kept = stored("dev");
    expect(kept).toMatchObject({ version: 1, stack: "dev", command: "apply --probe", endpoint: `${t.url}/apisetu` });
    expect(kept.results.map((x) => [x.name, x.outcome])).toEqual([
      ["health-policy", "passed"],
      ["disability-id-card", "passed"],
      ["class-x-marksheet", "passed"],
      ["transfer-certificate", "passed"],
    ]);
    // The demo parameters of the example stack are nowhere in the file.
    const text = readFileSync(join(dir, ".stackwarden", "probes", "dev.json"), "utf8");
    for (const value of ["Asha Verma", "9900100200300400504", "ZZ10000004", "Kavya Nair", "Banri Marak", "99002", "Arun Ekka", "99123"]) {
      expect(text).not.toContain(value);
    }
    // The audit entry records the apply (its changes and its own exit code), not the probes.
    const audit = readFileSync(join(dir, ".stackwarden", "audit", "dev.jsonl"), "utf8")
      .trimEnd()
      .split("\n");
    expect(JSON.parse(audit.at(-1)!)).toMatchObject({ command: "apply", exitCode: 0 });

    const check = await cli(["check", "--stack", "dev", "--output", "json"]);
    expect(check.code, check.err).toBe(0);
    const doc = JSON.parse(check.out) as CheckJson;
    // The first note is the scope's coverage (checked in scope-check.test.ts).
    expect(doc.notes[1]).toMatch(
      new RegExp(
        `^post-deploy-probes judges the last probe run \\(\\.stackwarden/probes/dev\\.json\\): \`apply --probe\` finished \\S+ against ${t.url.replace(/[.]/g, "\\.")}/apisetu, 4 result\\(s\\)$`,
      ),
    );
    expect(probeFindings(doc).map((f) => f.verdict)).toEqual(["pass", "pass", "pass", "pass"]);
  });

  it("a probe whose record does not exist: the apply converged, the probe failed: exit 4, the issuer's error shown and kept", async () => {
    const r = await cli(["apply", "--config", "Pulumi.broken.yaml", "--yes", "--probe"]);
    expect(r.code, r.err).toBe(4);
    expect(r.out).toContain("Nothing to apply: live TDE already matches the stack.");
    expect(r.out).toMatch(/FAIL {2}missing-record +lawcollegeandaman\/trcer +pdf/);
    expect(r.out).toContain("HTTP 404 record_not_found: No record found");
    expect(r.out).toContain("2 probe(s): 1 passed, 1 failed");
    expect(stored("broken").results.find((x) => x.name === "missing-record")).toMatchObject({
      outcome: "failed",
      status: 404,
      error: { code: "record_not_found", message: "No record found" },
    });
  });

  it("a probe that cannot run (a variable with no value): exit 1 before anything changes, naming the variable", async () => {
    const text = `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg-data, server: sql-prod-1, database: orders, transparentDataEncryption: Disabled }
  stackwarden:probes:
    - { name: tc, issuer: lawcollegeandaman, doctype: trcer, parameters: { admissionNo: "\${env:UNSET_ADMN}", fullName: "\${env:UNSET_NAME:-Arun Ekka}" } }
`;
    writeFileSync(join(dir, "Pulumi.unset.yaml"), text);
    const before = puts();
    const r = await cli(["apply", "--config", "Pulumi.unset.yaml", "--yes", "--probe"]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toBe("stackwarden: SW_SETTING_INVALID: probe tc: parameter ADMN_NO (Admn No.): set the environment variable UNSET_ADMN");
    expect(puts()).toBe(before);
    expect(await tde("orders")).toBe("Enabled");
    expect(existsSync(join(dir, ".stackwarden", "probes", "unset.json"))).toBe(false);
    expect(existsSync(join(dir, ".stackwarden", "audit", "unset.jsonl"))).toBe(false);
  });

  it("an apply that fails: exit 1, nothing is probed, the last run is kept as it was", async () => {
    const text = BROKEN().replace("database: orders", "database: no-such-database");
    writeFileSync(join(dir, "Pulumi.broken.yaml"), text);
    const before = readFileSync(join(dir, ".stackwarden", "probes", "broken.json"), "utf8");
    try {
      const r = await cli(["apply", "--config", "Pulumi.broken.yaml", "--yes", "--probe"]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/no-such-database/);
      expect(r.out).not.toContain("Probes of stack");
      expect(readFileSync(join(dir, ".stackwarden", "probes", "broken.json"), "utf8")).toBe(before);
    } finally {
      writeFileSync(join(dir, "Pulumi.broken.yaml"), BROKEN());
    }
  });
});

describe("check over the last run", () => {
  it("a failed probe: advisory, exit 0; SARIF is schema-valid, points at the probe's line and carries the note", async () => {
    const json = JSON.parse((await cli(["check", "--config", "Pulumi.broken.yaml", "--output", "json"])).out) as CheckJson;
    const failed = probeFindings(json).find((f) => f.verdict === "fail")!;
    expect(failed).toMatchObject({
      label: "missing-record",
      level: "advisory",
      line: probeLine(BROKEN(), "missing-record").line,
      message:
        "Probe missing-record must get a valid document from lawcollegeandaman/trcer (pdf) after a deployment; the issuer answered record_not_found: No record found",
    });

    const r = await cli(["check", "--config", "Pulumi.broken.yaml", "--output", "sarif"]);
    expect(r.code, r.err).toBe(0);
    const log = JSON.parse(r.out) as {
      runs: {
        invocations: { toolExecutionNotifications?: { level: string; message: { text: string } }[] }[];
        results: {
          ruleId: string;
          level: string;
          message: { text: string };
          locations: {
            physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } };
            logicalLocations: { fullyQualifiedName: string }[];
          }[];
          partialFingerprints: Record<string, string>;
        }[];
      }[];
    };
    expect(validateSarif(log), ajv.errorsText(validateSarif.errors)).toBe(true);
    const results = log.runs[0].results.filter((x) => x.ruleId === "post-deploy-probes");
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ level: "warning", message: { text: failed.message } });
    expect(results[0].locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: "Pulumi.broken.yaml" },
      region: { startLine: probeLine(BROKEN(), "missing-record").line, startColumn: 7 },
    });
    expect(BROKEN().split("\n")[results[0].locations[0].physicalLocation.region.startLine - 1]).toContain("- name: missing-record");
    expect(results[0].locations[0].logicalLocations[0].fullyQualifiedName).toBe("stackwarden:probes/missing-record");
    expect(results[0].partialFingerprints["stackwardenFinding/v1"]).toMatch(/^[0-9a-f]{64}$/);
    expect(log.runs[0].invocations[0].toolExecutionNotifications).toEqual([
      {
        level: "note",
        message: { text: expect.stringMatching(/^post-deploy-probes judges the last probe run \(\.stackwarden\/probes\/broken\.json\)/) },
      },
    ]);

    const md = await cli(["check", "--config", "Pulumi.broken.yaml", "--output", "markdown"]);
    expect(md.out).toContain("> post-deploy-probes judges the last probe run (.stackwarden/probes/broken.json)");
    expect(md.out).toMatch(/\| ADVISORY \| `post-deploy-probes` \| `missing-record` \(\[line \d+\]\(Pulumi\.broken\.yaml#L\d+\)\) \|/);
  });

  it("the same run judged mandatory (stackwarden:policies) fails check: exit 3", async () => {
    // gate's probes are the same probes: its own last run, written by `probe`.
    const p = await cli(["probe", "--config", "Pulumi.gate.yaml"]);
    expect(p.code).toBe(4);
    expect(stored("gate").command).toBe("probe");
    const r = await cli(["check", "--config", "Pulumi.gate.yaml"]);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/FAIL\s+post-deploy-probes\s+missing-record\s+Probe missing-record must get a valid document/);
  });

  it("a damaged results file is no error: the note says what was found and no probe is judged", async () => {
    writeFileSync(join(dir, ".stackwarden", "probes", "broken.json"), '{"version":1,"results":[{"name":"missing-rec');
    const r = await cli(["check", "--config", "Pulumi.broken.yaml", "--output", "json"]);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as CheckJson;
    expect(doc.notes).toEqual([
      "post-deploy-probes has no probe results to judge: .stackwarden/probes/broken.json: it is not JSON (`stackwarden probe` writes it again)",
    ]);
    expect(probeFindings(doc).map((f) => f.verdict)).toEqual(["not-applicable", "not-applicable"]);
  });

  it("--probe-dir and STACKWARDEN_PROBE_DIR move the results for probe and check alike", async () => {
    const elsewhere = join(dir, "shared-probes");
    const p = await cli(["probe", "--config", "Pulumi.broken.yaml", "--probe-dir", elsewhere]);
    expect(p.code).toBe(4);
    expect(stored("broken", elsewhere).command).toBe("probe");
    const r = await cli(["check", "--config", "Pulumi.broken.yaml", "--output", "json"], env({ STACKWARDEN_PROBE_DIR: elsewhere }));
    const doc = JSON.parse(r.out) as CheckJson;
    expect(doc.notes[0]).toContain("(shared-probes/broken.json)");
    expect(probeFindings(doc).map((f) => f.verdict)).toEqual(["pass", "fail"]);
  });

  it("check --planned (the pull-request gate) judges no probe: the planned state has not been deployed", async () => {
    const r = await cli(["check", "--config", "Pulumi.gate.yaml", "--planned", "--output", "json"]);
    expect(r.code, r.err).toBe(0); // the same stack live is 3 (its probe failed, mandatory)
    const doc = JSON.parse(r.out) as CheckJson;
    expect(doc.notes).toEqual([]);
    expect(probeFindings(doc)).toEqual([]);
  });

  it("a stack without probes, or with the rule disabled, reads no file and adds no note", async () => {
    writeFileSync(
      join(dir, "Pulumi.plain.yaml"),
      `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n    - { resourceGroup: rg-data, server: sql-prod-1, database: orders, transparentDataEncryption: Enabled }\n`,
    );
    writeFileSync(
      join(dir, "Pulumi.off.yaml"),
      BROKEN().replace(
        "  stackwarden:probes:",
        "  stackwarden:policies:\n    post-deploy-probes: { enforcementLevel: disabled }\n  stackwarden:probes:",
      ),
    );
    for (const stack of ["plain", "off"]) {
      const doc = JSON.parse((await cli(["check", "--config", `Pulumi.${stack}.yaml`, "--output", "json"])).out) as CheckJson;
      expect(doc.notes, stack).toEqual([]);
      expect(probeFindings(doc), stack).toEqual([]);
    }
  });
});
