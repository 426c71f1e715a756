import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli, stackDir } from "./cli-harness";

/**
 * `tde-key-validity`'s expiry and rotation settings (issue 33) through `check --output json`, against
 * an emulator holding one server per case: the protector is read at 2021-11-01 (its
 * `autoRotationEnabled`), the key with its `attributes.created` and rotation policy. Times are
 * relative to when the seed is loaded, so each case stays what it says.
 *
 * | server             | key (created, expiry)           | auto-rotation |
 * |--------------------|---------------------------------|---------------|
 * | sql-r-noexp        | tde-noexp (now-10d, none)       | off           |
 * | sql-r-manual       | tde-young (now-10d, now+400d)   | off           |
 * | sql-r-auto         | tde-young                       | on            |
 * | sql-r-old-manual   | tde-old (now-400d, now+400d)    | off           |
 * | sql-r-old-auto     | tde-old                         | on            |
 */
const YOUNG = "0123456789abcdef0123456789abcdef";
const OLD = "fedcba9876543210fedcba9876543210";
const NOEXP = "00000000000000000000000000000001";
const uri = (key: string, version: string) => `https://kv-rot.vault.azure.net/keys/${key}/${version}`;
const SERVERS: [string, string, boolean][] = [
  ["sql-r-noexp", uri("tde-noexp", NOEXP), false],
  ["sql-r-manual", uri("tde-young", YOUNG), false],
  ["sql-r-auto", uri("tde-young", YOUNG), true],
  ["sql-r-old-manual", uri("tde-old", OLD), false],
  ["sql-r-old-auto", uri("tde-old", OLD), true],
];

/** The principal id of the i-th server's system-assigned identity. */
const principalOf = (i: number) => `5ec0de00-0000-4000-8000-0000000001${String(i).padStart(2, "0")}`;

const SEED = `
sql:
  subscriptionId: 00000000-0000-0000-0000-000000000000
  servers:
${SERVERS.map(
  ([name, keyUri, auto], i) => `    - name: ${name}
      resourceGroup: rg-rot
      location: West Europe
      identity: { type: SystemAssigned, principalId: ${principalOf(i)} }
      encryptionProtector: { keyUri: "${keyUri}", autoRotationEnabled: ${auto} }
      databases: [{ name: app, transparentDataEncryption: Enabled }]`,
).join("\n")}
keyvault:
  subscriptionId: 00000000-0000-0000-0000-000000000000
  vaults:
    - name: kv-rot
      resourceGroup: rg-rot-keys
      location: westeurope
      enablePurgeProtection: true
      # each server's identity may use its key, so tde-key-access passes and the exit code is this rule's
      accessPolicies:
${SERVERS.map((_, i) => `        - { objectId: ${principalOf(i)}, permissions: { keys: [get, wrapKey, unwrapKey] } }`).join("\n")}
      keys:
        - { name: tde-noexp, version: "${NOEXP}", creationDate: now-10d, activationDate: now-10d }
        - { name: tde-young, version: "${YOUNG}", creationDate: now-10d, activationDate: now-10d, expirationDate: now+400d }
        - name: tde-old
          version: "${OLD}"
          creationDate: now-400d
          activationDate: now-400d
          expirationDate: now+400d
          rotationPolicy:
            expiryTime: P2Y
            lifetimeActions: [{ action: rotate, timeAfterCreate: P365D }, { action: notify, timeBeforeExpiry: P30D }]
`;

interface JsonFinding {
  ruleId: string;
  verdict: string;
  label: string;
  message: string;
  properties?: Record<string, unknown>;
}

let emu: TestEmulator;
let dir: string;

/** A stack over every server of the seed, with `tde-key-validity`'s settings as given. */
function stack(settings: Record<string, unknown> | undefined): string {
  return [
    "config:",
    "  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000",
    "  stackwarden:databases:",
    ...SERVERS.map(([name]) => `    - { resourceGroup: rg-rot, server: ${name}, database: app, transparentDataEncryption: Enabled }`),
    ...(settings ? ["  stackwarden:policies:", `    tde-key-validity: ${JSON.stringify(settings)}`] : []),
    "",
  ].join("\n");
}

beforeAll(async () => {
  emu = await startTestEmulator({ seed: seedFromYaml(SEED) });
  dir = stackDir({
    "Pulumi.default.yaml": stack(undefined),
    "Pulumi.no-expiry.yaml": stack({ requireExpiry: false }),
    "Pulumi.auto.yaml": stack({ requireAutoRotation: true, requireExpiry: false }),
    "Pulumi.aged.yaml": stack({ maxKeyAgeDays: 365, requireExpiry: false }),
  });
});

afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `check --output json` of one stack file: the verdict of tde-key-validity per server, and the findings. */
async function validity(name: string): Promise<{ verdicts: Record<string, string>; findings: JsonFinding[]; code: number }> {
  const r = await runCli(["check", "--config", `Pulumi.${name}.yaml`, "--output", "json"], emu.url, dir);
  expect(r.err).toBe("");
  const findings = (JSON.parse(r.out) as { findings: JsonFinding[] }).findings.filter((f) => f.ruleId === "tde-key-validity");
  return { verdicts: Object.fromEntries(findings.map((f) => [f.label.split("/")[1], f.verdict])), findings, code: r.code };
}

const of = (findings: JsonFinding[], server: string) => findings.find((f) => f.label === `rg-rot/${server}`)!;

describe("tde-key-validity: expiry and rotation over the emulator", () => {
  it("requireExpiry (default on): the key without an expiry fails, and the check exits 3; off, it passes", async () => {
    const on = await validity("default");
    expect(on.verdicts).toEqual({
      "sql-r-noexp": "fail",
      "sql-r-manual": "pass",
      "sql-r-auto": "pass",
      "sql-r-old-manual": "pass",
      "sql-r-old-auto": "pass",
    });
    expect(on.code).toBe(3);
    expect(of(on.findings, "sql-r-noexp").message).toBe(
      `The TDE protector key kv-rot/tde-noexp/${NOEXP} of SQL server rg-rot/sql-r-noexp must be enabled, active, more than 30 days from expiry, and RSA or RSA-HSM of 2048 or 3072 bits; it has no expiration date`,
    );
    const off = await validity("no-expiry");
    expect(Object.values(off.verdicts)).toEqual(["pass", "pass", "pass", "pass", "pass"]);
    expect(of(off.findings, "sql-r-noexp").message).toMatch(/, does not expire$/);
    expect(off.code).toBe(0);
  });

  it("requireAutoRotation: a server that does not rotate its key fails, one that does passes", async () => {
    const { verdicts, findings } = await validity("auto");
    expect(verdicts).toEqual({
      "sql-r-noexp": "fail",
      "sql-r-manual": "fail",
      "sql-r-auto": "pass",
      "sql-r-old-manual": "fail",
      "sql-r-old-auto": "pass",
    });
    expect(of(findings, "sql-r-manual").message).toMatch(
      /and rotated automatically by its server; its server does not rotate it automatically \(autoRotationEnabled is false\)$/,
    );
    expect(of(findings, "sql-r-auto").message).toMatch(/; its server rotates it automatically$/);
  });

  it("maxKeyAgeDays: a version older than that fails unless its server rotates it automatically", async () => {
    const { verdicts, findings } = await validity("aged");
    expect(verdicts).toEqual({
      "sql-r-noexp": "pass",
      "sql-r-manual": "pass",
      "sql-r-auto": "pass",
      "sql-r-old-manual": "fail",
      "sql-r-old-auto": "pass",
    });
    expect(of(findings, "sql-r-old-manual").message).toMatch(
      /; it was created on \d{4}-\d\d-\d\d, 400 days ago, more than 365, and its server does not rotate it automatically \(autoRotationEnabled is false\)$/,
    );
    expect(of(findings, "sql-r-old-auto").message).toMatch(
      /, created on \d{4}-\d\d-\d\d \(400 days ago\); its server rotates it automatically$/,
    );
  });

  it("the findings carry the protector's auto-rotation, the version's creation and age, and the key's rotation policy", async () => {
    const { findings } = await validity("default");
    expect(of(findings, "sql-r-old-auto").properties).toMatchObject({
      autoRotationEnabled: true,
      keyAgeDays: 400,
      keyCreated: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      rotationPolicy: ["rotate P365D after creation", "notify P30D before expiry", "new versions expire after P2Y"],
    });
    expect(of(findings, "sql-r-manual").properties).toMatchObject({ autoRotationEnabled: false, keyAgeDays: 10 });
    expect(of(findings, "sql-r-manual").properties).not.toHaveProperty("rotationPolicy");
  });

  it("SARIF results carry the same properties", async () => {
    const r = await runCli(["check", "--config", "Pulumi.default.yaml", "--output", "sarif", "--sarif-passes"], emu.url, dir);
    const results = (
      JSON.parse(r.out) as { runs: { results: { ruleId: string; kind?: string; properties?: Record<string, unknown> }[] }[] }
    ).runs[0].results.filter((x) => x.ruleId === "tde-key-validity");
    expect(results.map((x) => x.properties?.autoRotationEnabled).sort()).toEqual([false, false, false, true, true]);
    expect(results.some((x) => Array.isArray(x.properties?.rotationPolicy))).toBe(true);
  });
});
