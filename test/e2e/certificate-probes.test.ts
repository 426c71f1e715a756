import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type * as Automation from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlClient } from "../../src/services/sql/client";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { PulumiProject, e2eCli, explain } from "../helpers/pulumi-cli";

// The real Pulumi CLI runs the stack's post-deploy probes: a CertificateProbe per probe, after the
// TDE resources (the engine's event log shows the order), again after an up that changes a TDE
// resource and not otherwise (a converged stack previews clean), with the pack's
// post-deploy-probes flagging the failed one at the end of up; and the state (pulumi stack export and
// the file:// backend's JSON) holds none of the personal data planted in the probes' environment
// and Pulumi secret, nor the API Setu key and client id. The steps share one stack and run in order.

const cli = e2eCli();

const SUB = "00000000-0000-0000-0000-000000000000";
const STACK = "probes";
const TDE_TYPE = "pulumi-nodejs:dynamic/sql:TransparentDataEncryption";
const PROBE_TYPE = "pulumi-nodejs:dynamic/certificates:CertificateProbe";

/** Invented personal data, planted where the probes read it: environment variables and a Pulumi secret. */
const PLANTED_ENV = {
  E2E_TC_ADMN: "PLANTED-E2E-ADMN-3141",
  E2E_TC_NAME: "Cassiel Plantedburrow",
  E2E_ID_NAME: "Wrenna Plantedfold",
  E2E_MISSING_ADMN: "PLANTED-E2E-NOREC-2718",
  E2E_MISSING_NAME: "Ozric Plantedabsent",
};
const PLANTED_SECRET = "PLANTEDE2ECERT0099";
const PLANTED = [...Object.values(PLANTED_ENV), PLANTED_SECRET];
/** The key variables, planted too: the provider reads them from its environment at call time, and state holds neither. */
const APISETU_KEY = "planted-e2e-apisetu-key-5b0c";
const APISETU_CLIENT = "planted-e2e-apisetu-client-9d3f";
const KEYS = [APISETU_KEY, APISETU_CLIENT];

const SEED = `
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 400
  servers:
    - name: sql-e2e
      resourceGroup: rg-e2e
      databases:
        - { name: alpha, transparentDataEncryption: Disabled }   # the stack wants Enabled: a real scan
        - { name: beta, transparentDataEncryption: Enabled }
certificates:
  records:
    - { doctype: trcer, issueDate: 2021-07-30, parameters: { ADMN_NO: ${PLANTED_ENV.E2E_TC_ADMN}, FullName: ${PLANTED_ENV.E2E_TC_NAME} } }
    - doctype: govid
      issueDate: 2023-08-21
      parameters: { CERT_NO: ${PLANTED_SECRET}, FullName: ${PLANTED_ENV.E2E_ID_NAME} }
      holder: { dob: 01-01-1990, motherName: M, swd: S, swdIndicator: D, category: GEN }
`;

const CONFIG = {
  "stackwarden:subscriptionId": SUB,
  "stackwarden:databases": ["alpha", "beta"].map((database) => ({
    resourceGroup: "rg-e2e",
    server: "sql-e2e",
    database,
    transparentDataEncryption: "Enabled",
  })),
  "stackwarden:probes": [
    {
      name: "tc",
      issuer: "lawcollegeandaman",
      doctype: "trcer",
      parameters: { admissionNo: "${env:E2E_TC_ADMN}", fullName: "${env:E2E_TC_NAME}" },
    },
    {
      name: "id-card",
      issuer: "swavlambancard",
      doctype: "govid",
      format: "xml",
      // certificateNo is set below with `pulumi config set --secret --path`.
      parameters: { fullName: "${env:E2E_ID_NAME}" },
    },
    {
      name: "missing",
      issuer: "lawcollegeandaman",
      doctype: "trcer",
      parameters: { admissionNo: "${env:E2E_MISSING_ADMN}", fullName: "${env:E2E_MISSING_NAME}" },
    },
  ],
};

interface EngineEvent {
  sequence: number;
  resourcePreEvent?: { metadata: { op: string; urn: string; type: string } };
  resOutputsEvent?: { metadata: { op: string; urn: string; type: string } };
}

/** Sequence numbers of the steps that started and finished for resources of a type (same steps excluded). */
function steps(events: EngineEvent[], type: string) {
  const of = (k: "resourcePreEvent" | "resOutputsEvent") =>
    events
      .filter((e) => e[k]?.metadata.type === type && e[k]!.metadata.op !== "same")
      .map((e) => ({ seq: e.sequence, op: e[k]!.metadata.op, name: e[k]!.metadata.urn.split("::").at(-1)! }));
  return { started: of("resourcePreEvent"), finished: of("resOutputsEvent") };
}

describe.skipIf(!cli)("Pulumi CLI end to end: post-deploy certificate probes", () => {
  let t: TestEmulator;
  let project: PulumiProject;
  let sql: SqlClient;
  const tde = async (database: string) =>
    (await sql.getTransparentDataEncryption({ subscriptionId: SUB, resourceGroup: "rg-e2e", server: "sql-e2e", database })).properties
      ?.status;

  beforeAll(async () => {
    t = await startTestEmulator({ seed: seedFromYaml(SEED) });
    sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
    project = new PulumiProject({ cli: cli!, emulatorUrl: t.url });
    Object.assign(project.env, PLANTED_ENV, {
      STACKWARDEN_APISETU_ENDPOINT: `${t.url}/apisetu`,
      STACKWARDEN_APISETU_API_KEY: APISETU_KEY,
      STACKWARDEN_APISETU_CLIENT_ID: APISETU_CLIENT,
    });
    project.writeStackConfig(STACK, CONFIG);
  });

  afterAll(async () => {
    project?.cleanup();
    await t?.close();
  });

  it("inits the stack and stores one probe parameter as a Pulumi secret (config set --secret --path)", async () => {
    for (const args of [
      ["login", project.backendUrl],
      ["stack", "init", STACK],
    ]) {
      const r = await project.pulumi(args);
      expect(r.code, explain(r)).toBe(0);
    }
    const set = await project.pulumi([
      "config",
      "set",
      "--secret",
      "--path",
      "stackwarden:probes[1].parameters.certificateNo",
      PLANTED_SECRET,
    ]);
    expect(set.code, explain(set)).toBe(0);
    const file = readFileSync(project.stackFile(STACK), "utf8");
    expect(file).not.toContain(PLANTED_SECRET);
    expect(file).toMatch(/certificateNo:\s*\n\s*secure: v1:/);
  });

  it("up runs each probe after every TDE resource; the failed probe is flagged by post-deploy-probes (advisory) at the end", async () => {
    // The engine's events, as the Automation API streams them (what `apply --engine pulumi` reads).
    const auto = require("@pulumi/pulumi/automation") as typeof Automation;
    const pulumiCommand = await auto.PulumiCommand.get({ root: dirname(cli!.binDir), skipVersionCheck: true });
    const envVars = Object.fromEntries(Object.entries(project.env).filter((e): e is [string, string] => e[1] !== undefined));
    const stack = await auto.LocalWorkspace.selectStack(
      { stackName: STACK, workDir: project.dir },
      { pulumiCommand, envVars: { ...envVars, PULUMI_BACKEND_URL: project.backendUrl } },
    );
    const events: EngineEvent[] = [];
    let output = "";
    const result = await stack.up({
      policyPacks: [join(project.dir, "policies")],
      color: "never",
      onOutput: (s) => (output += s),
      onEvent: (e) => events.push(e as EngineEvent),
    });
    expect(result.summary.result, output).toBe("succeeded");
    expect(await tde("alpha")).toBe("Enabled");
    expect(output).toMatch(/\[advisory\]\s+post-deploy-probes\s+\(pulumi-nodejs:dynamic\/certificates:CertificateProbe: probe-missing\)/);
    expect(output).toContain(
      "Probe missing must get a valid document from lawcollegeandaman/trcer (pdf) after a deployment; the issuer answered record_not_found: No record found",
    );
    expect(output).not.toMatch(/post-deploy-probes[^\n]*probe-(tc|id-card)\)/);

    const tdeSteps = steps(events, TDE_TYPE);
    const probeSteps = steps(events, PROBE_TYPE);
    expect(tdeSteps.finished.map((s) => `${s.name}:${s.op}`).sort()).toEqual([
      "tde-rg-e2e-sql-e2e-alpha:create",
      "tde-rg-e2e-sql-e2e-beta:create",
    ]);
    expect(probeSteps.started.map((s) => `${s.name}:${s.op}`).sort()).toEqual([
      "probe-id-card:create",
      "probe-missing:create",
      "probe-tc:create",
    ]);
    // Every probe starts only once every TDE resource has finished (alpha's includes its encryption scan).
    const lastTde = Math.max(...tdeSteps.finished.map((s) => s.seq));
    for (const p of probeSteps.started) expect(p.seq, p.name).toBeGreaterThan(lastTde);
  });

  it("the state holds what a probe keeps and none of the planted personal data or keys (pulumi stack export and the backend's file)", async () => {
    const exp = await project.pulumi(["stack", "export"]);
    expect(exp.code, explain(exp)).toBe(0);
    const backendDir = join(project.root, "backend", ".pulumi", "stacks", "stackwarden");
    const backendFile = readFileSync(join(backendDir, `${STACK}.json`), "utf8");
    for (const [where, text] of [
      ["pulumi stack export", exp.stdout],
      ["the file:// backend's stack file", backendFile],
      ...readdirSync(backendDir)
        .filter((f) => f !== `${STACK}.json`)
        .map((f) => [`backend ${f}`, readFileSync(join(backendDir, f), "utf8")]),
    ]) {
      for (const value of [...PLANTED, ...KEYS])
        expect(text.toLowerCase().includes(value.toLowerCase()), `${value} in ${where}`).toBe(false);
    }

    const deployment = (
      JSON.parse(exp.stdout) as {
        deployment: { resources: { type: string; urn: string; inputs?: Record<string, any>; outputs?: Record<string, any> }[] };
      }
    ).deployment;
    const probes = deployment.resources.filter((r) => r.type === PROBE_TYPE);
    expect(probes.map((p) => p.urn.split("::").at(-1)).sort()).toEqual(["probe-id-card", "probe-missing", "probe-tc"]);
    const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
    for (const p of probes) {
      const { __provider, ...outputs } = p.outputs!;
      expect(typeof __provider).toBe("string");
      const failed = outputs.outcome === "failed";
      expect(Object.keys(outputs).sort(), p.urn).toEqual(
        failed
          ? ["doctype", "error", "format", "inputsDigest", "issuer", "latencyMs", "name", "outcome"]
          : ["doctype", "format", "inputsDigest", "issuer", "latencyMs", "name", "outcome", "sha256", "size"],
      );
      expect(outputs.sha256 ?? "0".repeat(64)).toMatch(/^[0-9a-f]{64}$/);
    }
    const byName = (n: string) => probes.find((p) => p.urn.endsWith(`::${n}`))!;
    expect(byName("probe-tc").outputs).toMatchObject({ outcome: "passed" });
    expect(byName("probe-id-card").outputs).toMatchObject({ outcome: "passed", format: "xml" });
    expect(byName("probe-missing").outputs).toMatchObject({ outcome: "failed", error: { code: "record_not_found" } });
    // The env references are kept as references; the secret parameter's probe keeps its parameters encrypted.
    expect(byName("probe-tc").inputs!.parameters).toEqual({
      ADMN_NO: { from: "env", variable: "E2E_TC_ADMN" },
      FullName: { from: "env", variable: "E2E_TC_NAME" },
    });
    // Only the secret's value is encrypted in state: the rest stays references.
    expect(byName("probe-id-card").inputs!.parameters).toEqual({
      CERT_NO: {
        from: "secret",
        variable: "STACKWARDEN_PROBE_ID_CARD_CERTIFICATE_NO",
        value: { "4dabf18193072939515e22adb298388d": SECRET_SIG, ciphertext: expect.stringMatching(/^v1:/) },
      },
      FullName: { from: "env", variable: "E2E_ID_NAME" },
    });
  });

  it("the converged stack previews and refreshes clean: the probes have nothing to do when the TDE resources have not", async () => {
    const calls = () =>
      Object.entries(t.emu.stats.byRoute)
        .filter(([k]) => k.includes("/certificate"))
        .reduce((n, [, v]) => n + v, 0);
    const before = calls();
    for (const args of [
      ["preview", "--refresh", "--expect-no-changes", "--policy-pack", "policies"],
      ["refresh", "--preview-only", "--expect-no-changes"],
    ]) {
      const r = await project.pulumi(args);
      expect(r.code, explain(r)).toBe(0);
      expect(r.stdout).not.toMatch(/CertificateProbe probe-\S+ update/);
    }
    const up = await project.pulumi(["up", "--yes", "--policy-pack", "policies"]);
    expect(up.code, explain(up)).toBe(0);
    expect(up.stdout).not.toMatch(/CertificateProbe \S+ updated/);
    expect(calls()).toBe(before);
  });

  it("an up that changes a TDE resource runs every probe again after it (removing a database, then adding it back)", async () => {
    const change = async (databases: (typeof CONFIG)["stackwarden:databases"], tdeStep: RegExp) => {
      // Only the databases change: the probes' config (with its Pulumi secret) stays as it is.
      const config = project.readStackFile(STACK).config as Record<string, unknown>;
      project.writeStackConfig(STACK, { ...config, "stackwarden:databases": databases });
      const preview = await project.pulumi(["preview", "--policy-pack", "policies"]);
      expect(preview.code, explain(preview)).toBe(0);
      expect(preview.stdout).toMatch(/~ 3 to update/); // the probes, their deployment not known yet
      const r = await project.pulumi(["up", "--yes", "--policy-pack", "policies"]);
      expect(r.code, explain(r)).toBe(0);
      expect(r.stdout).toMatch(tdeStep);
      expect(r.stdout).toMatch(/~\s+pulumi-nodejs:dynamic\/certificates:CertificateProbe probe-tc updated/);
      expect(r.stdout).toMatch(/~ 3 updated/);
      expect(r.stdout).toMatch(
        /\[advisory\]\s+post-deploy-probes\s+\(pulumi-nodejs:dynamic\/certificates:CertificateProbe: probe-missing\)/,
      );
    };
    const databases = CONFIG["stackwarden:databases"];
    await change(databases.slice(0, 1), /TransparentDataEncryption tde-rg-e2e-sql-e2e-beta deleted/);
    await change(databases, /TransparentDataEncryption tde-rg-e2e-sql-e2e-beta created/);
    const exp = await project.pulumi(["stack", "export"]);
    for (const value of [...PLANTED, ...KEYS]) expect(exp.stdout).not.toContain(value);
  });

  it("a probe that cannot run (its variable unset) stops preview at Check, naming the variable; the secret beside it is not shown", async () => {
    // The id-card probe also holds the decrypted secret: the engine prints a failing property's value, so none is named.
    const saved = project.env.E2E_ID_NAME;
    delete project.env.E2E_ID_NAME;
    try {
      const r = await project.pulumi(["preview"]);
      expect(r.code, explain(r)).not.toBe(0);
      expect(r.output).toContain(
        "resource 'probe-id-card' has a problem: parameters: probe id-card: parameter FullName (Full name): set the environment variable E2E_ID_NAME",
      );
      for (const value of [...PLANTED, ...KEYS]) expect(r.output.toLowerCase()).not.toContain(value.toLowerCase());
    } finally {
      project.env.E2E_ID_NAME = saved;
    }
  });

  it("stackwarden apply --engine pulumi --probe: up (which runs the CertificateProbes), then the CLI's probes: exit 4, results kept for check", async () => {
    // The CLI cannot decrypt the secure parameter: it reads STACKWARDEN_PROBE_<PROBE>_<PARAMETER> instead.
    const env = { ...project.env, PULUMI_BACKEND_URL: project.backendUrl };
    const without = await project.stackwarden(["apply", "--engine", "pulumi", "--stack", STACK, "--yes", "--probe"], env);
    expect(without.code, explain(without)).toBe(1);
    expect(without.stderr).toContain("set STACKWARDEN_PROBE_ID_CARD_CERTIFICATE_NO to supply it to the CLI");
    expect(without.stdout).not.toContain("Pulumi engine:"); // refused before the engine started

    const r = await project.stackwarden(["apply", "--engine", "pulumi", "--stack", STACK, "--yes", "--probe"], {
      ...env,
      STACKWARDEN_PROBE_ID_CARD_CERTIFICATE_NO: PLANTED_SECRET,
    });
    expect(r.code, explain(r)).toBe(4);
    // Nothing to change (the probes follow the TDE resources, which have nothing to do): the CLI's probes prove it.
    const up = r.stdout.indexOf("Apply (pulumi): succeeded, no changes.");
    const probed = r.stdout.indexOf(`Probes of stack ${STACK} against ${t.url}/apisetu`);
    expect(up).toBeGreaterThan(0);
    expect(probed).toBeGreaterThan(up);
    expect(r.stdout).toMatch(/FAIL {2}missing +lawcollegeandaman\/trcer/);
    expect(r.stdout).toContain("3 probe(s): 2 passed, 1 failed");
    const kept = readFileSync(join(project.dir, ".stackwarden", "probes", `${STACK}.json`), "utf8");
    expect(JSON.parse(kept)).toMatchObject({ command: "apply --probe", stack: STACK });
    for (const [where, text] of [
      ["stdout", r.stdout],
      ["stderr", r.stderr],
      ["the kept results", kept],
    ]) {
      for (const value of [...PLANTED, ...KEYS])
        expect(text.toLowerCase().includes(value.toLowerCase()), `${value} in ${where}`).toBe(false);
    }
  });

  it("destroy removes the probes (nothing is sent to the issuers) and leaves encryption as it is", async () => {
    const before = Object.entries(t.emu.stats.byRoute)
      .filter(([k]) => k.includes("/certificate"))
      .reduce((n, [, v]) => n + v, 0);
    const r = await project.pulumi(["destroy", "--yes"]);
    expect(r.code, explain(r)).toBe(0);
    const after = Object.entries(t.emu.stats.byRoute)
      .filter(([k]) => k.includes("/certificate"))
      .reduce((n, [, v]) => n + v, 0);
    expect(after).toBe(before);
    expect(await tde("alpha")).toBe("Enabled");
    const rm = await project.pulumi(["stack", "rm", "--yes", STACK]);
    expect(rm.code, explain(rm)).toBe(0);
  });
});
