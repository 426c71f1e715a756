import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadStackFile } from "../../src/usecases/stack-file";
import { runCertificateProbe } from "../../src/interfaces/pulumi/certificate-probe";
import { TYPES } from "../helpers/carrier-types";
import { PolicyAnalyzer, UNKNOWN_VALUE, urnOf, type AnalyzerResourceInput, type Level } from "../helpers/analyzer";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { runCliWith } from "../interfaces/cli/cli-harness";
import { devEstate } from "../services/certificates/certificates-kit";

/**
 * `post-deploy-probes` in the policy pack, as the engine runs it at the end of `pulumi up`
 * (AnalyzeStack over the CertificateProbe resources' outputs), and its parity with `check` over
 * the same probe results.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const STACK = `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:probes:
    - { name: transfer-certificate, issuer: lawcollegeandaman, doctype: trcer, parameters: { admissionNo: "\${env:TC_ADMN:-99123}", fullName: "\${env:TC_NAME:-Arun Ekka}" } }
    - { name: missing-record, issuer: lawcollegeandaman, doctype: trcer, parameters: { admissionNo: "\${env:M_ADMN:-99999}", fullName: "\${env:M_NAME:-Nobody Here}" } }
    - { name: id-card, issuer: swavlambancard, doctype: govid, format: xml, parameters: { certificateNo: "\${env:ID_CERT:-ZZ9900000000000002}", fullName: "\${env:ID_NAME:-Kavya Nair}" } }
`;

let analyzer: PolicyAnalyzer;
let t: TestEmulator;
let dir: string;

beforeAll(async () => {
  t = await startTestEmulator({ seed: devEstate() });
  analyzer = await PolicyAnalyzer.start();
  dir = mkdtempSync(join(tmpdir(), "sw-probe-policy-"));
  writeFileSync(join(dir, "Pulumi.probes.yaml"), STACK);
});
afterAll(async () => {
  await analyzer?.stop();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function configure(level: Level = "advisory"): Promise<void> {
  await analyzer.configure({
    "sql-tde-enabled": { enforcementLevel: "mandatory" },
    "sql-tier-advisor-drift": { enforcementLevel: "advisory" },
    "batch-quota-headroom": { enforcementLevel: "advisory" },
    "post-deploy-probes": { enforcementLevel: level },
  });
}

const probeResource = (name: string, props: Record<string, unknown>): AnalyzerResourceInput => ({
  type: TYPES.probe,
  name: `probe-${name}`,
  props: { name, issuer: "lawcollegeandaman", doctype: "trcer", format: "pdf", ...props },
});

describe("AnalyzeStack: post-deploy-probes over CertificateProbe outputs", () => {
  it("a failed probe is an advisory violation on the probe resource, with the rule's message; a passed one is not", async () => {
    await configure();
    const v = await analyzer.analyzeStack([
      probeResource("missing-record", {
        outcome: "failed",
        latencyMs: 4,
        error: { code: "record_not_found", message: "No record found" },
      }),
      probeResource("transfer-certificate", { outcome: "passed", latencyMs: 9, size: 2624, sha256: "a".repeat(64) }),
    ]);
    expect(v).toEqual([
      expect.objectContaining({
        policyName: "post-deploy-probes",
        enforcementLevel: "advisory",
        urn: urnOf(TYPES.probe, "probe-missing-record"),
        detail:
          "Probe missing-record must get a valid document from lawcollegeandaman/trcer (pdf) after a deployment; the issuer answered record_not_found: No record found",
      }),
    ]);
    await configure("mandatory");
    expect((await analyzer.analyzeStack([probeResource("missing-record", { outcome: "failed" })])).map((x) => x.enforcementLevel)).toEqual([
      "mandatory",
    ]);
    await configure("disabled");
    expect(await analyzer.analyzeStack([probeResource("missing-record", { outcome: "failed" })])).toEqual([]);
  });

  it("during a preview (outcome unknown, or only the inputs) no violation and no diagnostic", async () => {
    await configure();
    expect(
      await analyzer.analyzeStack([
        probeResource("a", { outcome: UNKNOWN_VALUE, latencyMs: UNKNOWN_VALUE }),
        probeResource("b", { parameters: { ADMN_NO: { from: "env", variable: "X" } } }),
      ]),
    ).toEqual([]);
  });
});

describe("parity: the pack over CertificateProbe outputs and check over the kept results judge alike", () => {
  it("same failures, levels and messages", async () => {
    const env = {
      PATH: process.env.PATH,
      STACKWARDEN_ARM_ENDPOINT: t.url,
      STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint,
      STACKWARDEN_APISETU_ENDPOINT: `${t.url}/apisetu`,
      STACKWARDEN_APISETU_API_KEY: "parity-key",
      STACKWARDEN_APISETU_CLIENT_ID: "parity-client",
    };
    const cli = (argv: string[]) => runCliWith(argv, { cwd: dir, env });
    expect((await cli(["probe", "--config", "Pulumi.probes.yaml"])).code).toBe(4);
    const check = await cli(["check", "--config", "Pulumi.probes.yaml", "--output", "json"]);
    expect(check.code).toBe(0);
    const fromCheck = (
      JSON.parse(check.out) as { findings: { ruleId: string; verdict: string; level: string; message: string }[] }
    ).findings
      .filter((f) => f.verdict === "fail")
      .map((f) => `${f.ruleId} ${f.level}: ${f.message}`);

    // What the Pulumi program registers: one CertificateProbe per probe, its outputs from the provider's core.
    const stack = loadStackFile(join(dir, "Pulumi.probes.yaml"), env, dir);
    const resources: AnalyzerResourceInput[] = [];
    for (const p of stack.probes!) {
      const { outs } = await runCertificateProbe(
        { name: p.name, issuer: p.issuer, doctype: p.doctype, format: p.format, parameters: p.parameters },
        env,
      );
      resources.push({ type: TYPES.probe, name: `probe-${p.name}`, props: { ...outs } });
    }
    await configure();
    const fromPack = (await analyzer.analyzeStack(resources)).map((v) => `${v.policyName} ${v.enforcementLevel}: ${v.detail}`);

    expect(fromPack).toEqual(fromCheck);
    expect(fromCheck).toEqual([
      "post-deploy-probes advisory: Probe missing-record must get a valid document from lawcollegeandaman/trcer (pdf) after a deployment; the issuer answered record_not_found: No record found",
    ]);
  });
});
