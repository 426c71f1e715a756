import { createHash } from "node:crypto";
import { join } from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CertificatesClient } from "../../src/services/certificates/client";
import * as sourceProviders from "../../providers";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { DynamicResourceDriver, PROJECT_ROOT, ProviderPlugin, UNKNOWN } from "../helpers/provider-plugin";

/**
 * The CertificateProbe dynamic provider, as Pulumi runs it: the text the resource stores
 * (`providerText("certificateProbe")`) re-loaded with require-from-string and called (the text from
 * the TypeScript source and from the compiled dist/; either loads dist/ at call time), and
 * driven over gRPC in the real dynamic-provider plugin, whose own environment supplies the keys
 * and the parameters (`${env:NAME}` resolved at call time, inside the provider). Outputs carry what
 * a probe keeps and never a planted value.
 */
const requireFromString = require("require-from-string") as (code: string) => { handler(): pulumi.dynamic.ResourceProvider };
type Providers = { providerText(name: "certificateProbe"): string };
const ORIGINS: [string, () => Providers][] = [
  ["source (vitest)", () => sourceProviders],
  ["compiled (dist/)", () => require(join(PROJECT_ROOT, "dist/providers/index.js")) as Providers],
];
const TYPE = "pulumi-nodejs:dynamic/certificates:CertificateProbe";

const PLANTED = {
  PROBE_TC_ADMN: "PLANTED-ADMN-4242",
  PROBE_TC_NAME: "Oriel Plantedwick",
  ID_CERT: "PLANTEDCERT00017",
  ID_NAME: "Thessaly Plantedmoor",
};
const SEED = `
certificates:
  records:
    - { doctype: trcer, issueDate: 2021-07-30, parameters: { ADMN_NO: ${PLANTED.PROBE_TC_ADMN}, FullName: ${PLANTED.PROBE_TC_NAME} } }
    - doctype: govid
      issueDate: 2023-08-21
      parameters: { CERT_NO: ${PLANTED.ID_CERT}, FullName: ${PLANTED.ID_NAME} }
      holder: { dob: 01-01-1990, motherName: M, swd: S, swdIndicator: D, category: GEN }
`;
const ENV_KEYS = [
  "STACKWARDEN_APISETU_ENDPOINT",
  "STACKWARDEN_APISETU_API_KEY",
  "STACKWARDEN_APISETU_CLIENT_ID",
  "STACKWARDEN_PROVIDER_NAMES",
  "STACKWARDEN_HOME",
  ...Object.keys(PLANTED),
];

/** A trcer probe whose parameters name the planted variables. */
const trcer = (name = "tc", admn = "PROBE_TC_ADMN") => ({
  name,
  issuer: "lawcollegeandaman",
  doctype: "trcer",
  format: "pdf",
  parameters: { ADMN_NO: { from: "env", variable: admn }, FullName: { from: "env", variable: "PROBE_TC_NAME" } },
});
/** A govid probe whose certificate number is a decrypted Pulumi secret, as the program hands it over. */
const govidSecret = () => ({
  name: "id",
  issuer: "swavlambancard",
  doctype: "govid",
  format: "xml",
  parameters: {
    CERT_NO: { from: "secret", variable: "STACKWARDEN_PROBE_ID_CERTIFICATE_NO", value: PLANTED.ID_CERT },
    FullName: { from: "env", variable: "ID_NAME" },
  },
});
const OUTPUT_KEYS_PASSED = ["doctype", "format", "inputsDigest", "issuer", "latencyMs", "name", "outcome", "sha256", "size"];

let t: TestEmulator;
let client: CertificatesClient;
const certificateCalls = () =>
  Object.entries(t.emu.stats.byRoute)
    .filter(([k]) => k.includes("/certificate"))
    .reduce((n, [, v]) => n + v, 0);
/** The sha-256 of the document the issuer gives for these parameters (its documents are deterministic). */
const shaOf = async (doctype: "trcer" | "govid", format: "pdf" | "xml", parameters: Record<string, string>) =>
  createHash("sha256")
    .update((await client.issue(doctype, { format, certificateParameters: parameters } as never)).bytes)
    .digest("hex");
const expectNoPlanted = (value: unknown, where: string) => {
  const text = JSON.stringify(value);
  for (const v of Object.values(PLANTED)) expect(text.includes(v), `${v} in ${where}: ${text}`).toBe(false);
};

beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  client = new CertificatesClient({ endpoint: `${t.url}/apisetu`, apiKey: "k", clientId: "c", retry: FAST_RETRY });
});
afterAll(async () => {
  await t?.close();
});

for (const [origin, load] of ORIGINS) {
  describe(`CertificateProbe: serialize, re-load and call: ${origin}`, () => {
    let saved: Record<string, string | undefined>;
    let p: Required<pulumi.dynamic.ResourceProvider>;
    let text: string;
    beforeAll(async () => {
      saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
      for (const k of ENV_KEYS) delete process.env[k];
      Object.assign(process.env, PLANTED, {
        STACKWARDEN_APISETU_ENDPOINT: `${t.url}/apisetu`,
        STACKWARDEN_APISETU_API_KEY: "provider-test-key",
        STACKWARDEN_APISETU_CLIENT_ID: "provider-test-client",
        // This process runs in the project, not in stacks/: name the project the text loads dist/ from.
        STACKWARDEN_HOME: PROJECT_ROOT,
      });
      text = load().providerText("certificateProbe");
      p = requireFromString(text).handler() as Required<pulumi.dynamic.ResourceProvider>;
    });
    afterAll(() => {
      for (const k of ENV_KEYS) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    });

    it("is small and captures nothing: no core, no transport, no environment value", () => {
      expect(text.length).toBeLessThanOrEqual(1024);
      expect(text).toContain("exports.handler");
      expect(text).toContain("dist/providers/provider-entry.js");
      expect(text).not.toMatch(/undici/i);
      for (const marker of [
        "function runProbe",
        "class CertificatesClient",
        "function prepareProbes",
        "@pulumi/pulumi",
        "pdfkit",
        "unpdf",
      ]) {
        expect(text).not.toContain(marker);
      }
      expectNoPlanted(text, "the serialized provider");
      expect(text).not.toContain("provider-test-key");
    });

    it("check: a runnable probe passes; a wrong one names the property; one that cannot run here names the variable", async () => {
      expect(await p.check({}, trcer())).toEqual({ inputs: trcer(), failures: [] });
      expect((await p.check({}, govidSecret())).failures).toEqual([]);
      const wrong = await p.check({}, { ...trcer(), doctype: "hlipc", color: "red" });
      expect(wrong.failures).toEqual([{ property: "color", reason: "unknown key" }]);
      expect((await p.check({}, { ...trcer(), doctype: "hlipc" })).failures).toEqual([
        { property: "doctype", reason: "hlipc is issued by newindia, not lawcollegeandaman" },
      ]);
      // A plain value is not a reference: refused by the schema, and the value is not repeated.
      const plain = await p.check({}, { ...trcer(), parameters: { ADMN_NO: "99123", FullName: { from: "env", variable: "X" } } });
      // A failure about the parameters names no property (the engine would print that property's value,
      // which may hold a decrypted secret): the path is in the reason.
      expect(plain.failures!.length).toBeGreaterThan(0);
      for (const f of plain.failures!) expect(f).toEqual({ property: "", reason: expect.stringMatching(/^parameters\.ADMN_NO: /) });
      expect(JSON.stringify(plain.failures)).not.toContain("99123");
      expect((await p.check({}, trcer("tc", "PROBE_NOT_SET"))).failures).toEqual([
        { property: "", reason: "parameters: probe tc: parameter ADMN_NO (Admn No.): set the environment variable PROBE_NOT_SET" },
      ]);
      expect((await p.check({}, { ...trcer(), name: UNKNOWN })).failures).toEqual([]);
    });

    it("create runs the probe with the provider's environment; outputs are what a probe keeps, nothing planted", async () => {
      const calls = certificateCalls();
      const created = await p.create(trcer());
      expect(certificateCalls()).toBe(calls + 1);
      expect(created.id).toBe("tc");
      expect(Object.keys(created.outs).sort()).toEqual(OUTPUT_KEYS_PASSED);
      expect(created.outs).toMatchObject({ name: "tc", issuer: "lawcollegeandaman", doctype: "trcer", format: "pdf", outcome: "passed" });
      expect(created.outs.sha256).toBe(await shaOf("trcer", "pdf", { ADMN_NO: PLANTED.PROBE_TC_ADMN, FullName: PLANTED.PROBE_TC_NAME }));
      expectNoPlanted(created, "create's result");

      const secret = await p.create(govidSecret());
      expect(secret.outs).toMatchObject({ outcome: "passed", format: "xml" });
      expect(secret.outs.sha256).toBe(await shaOf("govid", "xml", { CERT_NO: PLANTED.ID_CERT, FullName: PLANTED.ID_NAME }));
      expectNoPlanted(secret, "create's result (secret parameter)");
    });

    it("a probe whose record does not exist is a failed outcome with the issuer's error, not an error of the resource", async () => {
      process.env.PROBE_TC_ADMN = "PLANTED-NO-SUCH-ADMN";
      try {
        const created = await p.create(trcer("missing"));
        expect(created.outs).toMatchObject({ outcome: "failed", error: { code: "record_not_found", message: "No record found" } });
        expect(created.outs).not.toHaveProperty("sha256");
        expect(JSON.stringify(created)).not.toContain("PLANTED-NO-SUCH-ADMN");
      } finally {
        process.env.PROBE_TC_ADMN = PLANTED.PROBE_TC_ADMN;
      }
    });

    it("diff reports a change only when the probe or the deployment it follows changed (or is not known yet); update re-runs it; read and delete send nothing", async () => {
      const deployed = { ...trcer(), deployment: ["Enabled", "Disabled"] };
      const created = await p.create(deployed);
      // As it ran, whatever its outcome: nothing to do (a converged stack previews clean).
      expect(await p.diff("tc", created.outs, deployed)).toEqual({ changes: false });
      expect(await p.diff("tc", { ...created.outs, outcome: "failed" }, deployed)).toEqual({ changes: false });
      // The deployment it follows changed (a TDE status), or is not known yet (its update, in a preview): run again.
      expect(await p.diff("tc", created.outs, { ...trcer(), deployment: ["Enabled", "Enabled"] })).toEqual({ changes: true });
      expect(await p.diff("tc", created.outs, { ...trcer(), deployment: ["Enabled", UNKNOWN] })).toEqual({ changes: true });
      // The probe itself changed.
      expect(await p.diff("tc", created.outs, { ...deployed, format: "xml" })).toEqual({ changes: true });
      expect(
        await p.diff("tc", created.outs, {
          ...deployed,
          parameters: { ...deployed.parameters, FullName: { from: "env", variable: "OTHER" } },
        }),
      ).toEqual({
        changes: true,
      });
      // A state written before the digest existed: run once more.
      const { inputsDigest: _digest, ...older } = created.outs;
      expect(await p.diff("tc", older, deployed)).toEqual({ changes: true });
      const calls = certificateCalls();
      const updated = await p.update("tc", created.outs, trcer());
      expect(certificateCalls()).toBe(calls + 1);
      expect(updated.outs).toMatchObject({ outcome: "passed", sha256: created.outs.sha256 });
      expect(await p.read("tc", updated.outs!)).toEqual({ id: "tc", props: updated.outs });
      await p.delete("tc", updated.outs!);
      expect(certificateCalls()).toBe(calls + 1);
    });
  });
}

describe("CertificateProbe through the dynamic-provider plugin (gRPC)", () => {
  let plugin: ProviderPlugin;
  let probe: DynamicResourceDriver;
  beforeAll(async () => {
    plugin = await ProviderPlugin.start({
      env: {
        ...PLANTED,
        STACKWARDEN_APISETU_ENDPOINT: `${t.url}/apisetu`,
        STACKWARDEN_APISETU_API_KEY: "plugin-key",
        STACKWARDEN_APISETU_CLIENT_ID: "plugin-client",
      },
    });
    await plugin.configure();
    const compiled = require(join(PROJECT_ROOT, "dist/providers/index.js")) as Providers;
    probe = new DynamicResourceDriver(plugin, compiled.providerText("certificateProbe"), TYPE, "probe-tc");
  });
  afterAll(async () => {
    await plugin?.close();
  });

  it("Check, Create, Diff and Update as the engine sends them: the plugin's own environment supplies the parameters", async () => {
    // This test process has none of the variables: only the plugin's environment can resolve them.
    for (const k of Object.keys(PLANTED)) expect(process.env[k]).toBeUndefined();
    expect(await probe.check(trcer())).toEqual({ inputs: trcer(), failures: [] });
    const created = await probe.create(trcer());
    expect(created.id).toBe("tc");
    expect(created.properties).toMatchObject({ outcome: "passed", doctype: "trcer" });
    expect(Object.keys(created.properties).sort()).toEqual(OUTPUT_KEYS_PASSED);
    expect(created.properties.sha256).toBe(
      await shaOf("trcer", "pdf", { ADMN_NO: PLANTED.PROBE_TC_ADMN, FullName: PLANTED.PROBE_TC_NAME }),
    );
    expect(await probe.diff("tc", created.properties, trcer())).toMatchObject({ changes: "none", replaces: [] });
    expect(await probe.diff("tc", created.properties, { ...trcer(), deployment: ["Enabled"] })).toMatchObject({
      changes: "some",
      replaces: [],
    });
    const updated = await probe.update("tc", created.properties, govidSecret());
    expect(updated.properties).toMatchObject({ name: "id", doctype: "govid", format: "xml", outcome: "passed" });
    expectNoPlanted(created, "Create's answer");
    expectNoPlanted(updated, "Update's answer");
    expect(plugin.stderr).toBe("");
  });
});
