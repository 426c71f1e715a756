import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import { UNKNOWN } from "../../../src/platform/unknown-value";
import type { ComplianceFacts } from "../../../src/domain/facts/model/compliance-facts";
import type { Finding } from "../../../src/domain/compliance/finding";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import { managedHsmNotListed, stackServers, vaultNotListed } from "../../../src/domain/facts/key-custody-reads";
import { keyVaultFactsOf } from "../../../src/domain/facts/key-vaults";
import { protectorKeyFactsOf } from "../../../src/domain/facts/protector-keys";
import { protectorFactsOf } from "../../../src/domain/facts/tde-protectors";
import type { ReadFailure } from "../../../src/domain/facts/read-failure";
import type { Key } from "../../../src/services/keyvault/types";
import { emptyFacts } from "../../../src/domain/facts/gather";

/** The three key-custody rules as pure functions of their facts: the cases the estate cannot easily hold. */
const SUB = "00000000-0000-0000-0000-000000000000";
const NOW = Date.parse("2026-06-01T00:00:00Z");
const DAY = 86_400;
const V = "0123456789abcdef0123456789abcdef";
const [server] = stackServers({
  subscriptionId: SUB,
  databases: [{ resourceGroup: "rg", server: "sql-1", database: "db", transparentDataEncryption: "Enabled" }],
});
const vaultId = `/subscriptions/${SUB}/resourceGroups/rg-kv/providers/Microsoft.KeyVault/vaults/kv`;
const cmk = (uri = `https://kv.vault.azure.net/keys/tde/${V}`) =>
  protectorFactsOf(server, { protector: { id: "p", properties: { serverKeyType: "AzureKeyVault", uri } } });
const goodVault = () =>
  keyVaultFactsOf("kv", SUB, { vault: { id: vaultId, properties: { enableSoftDelete: true, enablePurgeProtection: true } } });
const key = (props: NonNullable<Key["properties"]>) =>
  protectorKeyFactsOf({ vaultName: "kv", keyName: "tde", version: V }, { key: { id: "k", properties: props } });
const rsa = (over: Partial<NonNullable<NonNullable<Key["properties"]>["attributes"]>> = {}, size = 2048) => ({
  kty: "RSA",
  keySize: size,
  attributes: { enabled: true, nbf: NOW / 1000 - 10 * DAY, exp: NOW / 1000 + 400 * DAY, ...over },
});

function judge(
  f: Partial<ComplianceFacts>,
  policies?: Parameters<typeof resolveRuleSettings>[0],
  exemptions = [],
): Record<string, Finding> {
  const facts: ComplianceFacts = {
    ...emptyFacts(SUB),
    ...f,
  };
  const { findings } = evaluateCompliance(facts, resolveRuleSettings(policies), exemptions, NOW);
  return Object.fromEntries(findings.filter((x) => x.ruleId !== "sql-tde-enabled").map((x) => [x.ruleId, x]));
}

describe("sql-tde-customer-managed-key", () => {
  it("passes a customer-managed protector (any case of AzureKeyVault), flags the service-managed one, and one whose protector cannot be read", () => {
    expect(judge({ tdeProtectors: [cmk()] })["sql-tde-customer-managed-key"].verdict).toBe("pass");
    const lower = protectorFactsOf(server, {
      protector: { id: "p", properties: { serverKeyType: "azurekeyvault", uri: `https://kv.vault.azure.net/keys/tde/${V}` } },
    });
    expect(judge({ tdeProtectors: [lower] })["sql-tde-customer-managed-key"].verdict).toBe("pass");
    const refused: ReadFailure = { status: 403, code: "AuthorizationFailed", message: "no role", readAt: "t" };
    const f = judge({ tdeProtectors: [protectorFactsOf(server, { failure: refused })] });
    expect(f["sql-tde-customer-managed-key"]).toMatchObject({ verdict: "fail", level: "advisory" });
    expect(f["sql-tde-customer-managed-key"].message).toBe(
      "The TDE protector of SQL server rg/sql-1 must be readable to show who holds its key; HTTP 403 AuthorizationFailed: no role",
    );
    // The other two have nothing to judge: one finding for one problem.
    expect(f["tde-key-vault-recoverable"].verdict).toBe("not-applicable");
    expect(f["tde-key-validity"].verdict).toBe("not-applicable");
  });

  it("is unknown during a preview, and mandatory when the stack says so; a server is exempted by its id", () => {
    expect(judge({ tdeProtectors: [{ ...cmk(), serverKeyType: UNKNOWN }] })["sql-tde-customer-managed-key"].verdict).toBe("unknown");
    const sm = protectorFactsOf(server, { protector: { id: "p", properties: { serverKeyType: "ServiceManaged" } } });
    expect(
      judge({ tdeProtectors: [sm] }, { "sql-tde-customer-managed-key": { enforcementLevel: "mandatory" } })["sql-tde-customer-managed-key"],
    ).toMatchObject({
      verdict: "fail",
      level: "mandatory",
    });
    const exempt = [{ resourceId: server.id.toUpperCase(), rules: ["sql-tde-customer-managed-key"], reason: "vendor-managed, CHG-9" }];
    expect(judge({ tdeProtectors: [sm] }, undefined, exempt as never)["sql-tde-customer-managed-key"].verdict).toBe("exempt");
  });
});

describe("tde-key-vault-recoverable", () => {
  it("absent settings count as off; both on passes with the retention", () => {
    const bare = keyVaultFactsOf("kv", SUB, { vault: { id: vaultId, properties: {} } });
    expect(judge({ tdeProtectors: [cmk()], keyVaults: [bare] })["tde-key-vault-recoverable"].message).toMatch(
      /; soft delete is off and purge protection is off$/,
    );
    const ok = keyVaultFactsOf("kv", SUB, {
      vault: { id: vaultId, properties: { enableSoftDelete: true, softDeleteRetentionInDays: 7, enablePurgeProtection: true } },
    });
    expect(judge({ tdeProtectors: [cmk()], keyVaults: [ok] })["tde-key-vault-recoverable"]).toMatchObject({
      verdict: "pass",
      message: "Key Vault rg-kv/kv has soft delete (7 days' retention) and purge protection",
    });
  });

  it("a vault not gathered yet is unknown; an unparseable URI is not applicable", () => {
    expect(judge({ tdeProtectors: [cmk()] })["tde-key-vault-recoverable"].verdict).toBe("unknown");
    const odd = cmk("not a uri");
    expect(judge({ tdeProtectors: [odd] })["tde-key-vault-recoverable"].verdict).toBe("not-applicable");
    expect(judge({ tdeProtectors: [odd] })["tde-key-validity"]).toMatchObject({
      verdict: "fail",
      message:
        "The TDE protector of SQL server rg/sql-1 must name a Key Vault key; its key URI is 'not a uri', which is not a key identifier",
    });
  });
});

describe("a protector whose key is in a Managed HSM", () => {
  const hsm = () => cmk(`https://hsm-1.managedhsm.azure.net/keys/tde/${V}`);
  const hsmId = `/subscriptions/${SUB}/resourceGroups/rg-hsm/providers/Microsoft.KeyVault/managedHSMs/hsm-1`;
  const hsmFacts = (properties: Record<string, unknown>) =>
    keyVaultFactsOf("hsm-1", SUB, { vault: { id: hsmId, properties } }, "managedHsm");
  const hsmKey = (props: NonNullable<Key["properties"]>) =>
    protectorKeyFactsOf({ vaultName: "hsm-1", keyName: "tde", version: V, managedHsm: true }, { key: { id: "k", properties: props } });

  it("is read, never not applicable: unknown until its HSM and key are gathered", () => {
    const f = judge({ tdeProtectors: [hsm()] });
    expect(f["tde-key-vault-recoverable"]).toMatchObject({ verdict: "unknown", message: "the Managed HSM hsm-1 has not been read yet" });
    expect(f["tde-key-validity"].verdict).toBe("unknown");
    expect(f["sql-tde-customer-managed-key"].verdict).toBe("pass");
  });

  it("is judged on its HSM's purge protection and soft delete, and its key like a vault key", () => {
    const good = judge({
      tdeProtectors: [hsm()],
      keyVaults: [
        hsmFacts({ enableSoftDelete: true, softDeleteRetentionInDays: 90, enablePurgeProtection: true, provisioningState: "Succeeded" }),
      ],
      protectorKeys: [hsmKey({ ...rsa({}, 3072), kty: "RSA-HSM" })],
    });
    expect(good["tde-key-vault-recoverable"]).toMatchObject({
      verdict: "pass",
      message: "Managed HSM rg-hsm/hsm-1 has soft delete (90 days' retention) and purge protection",
    });
    expect(good["tde-key-validity"].verdict).toBe("pass");
    const weak = judge({
      tdeProtectors: [hsm()],
      keyVaults: [hsmFacts({ enableSoftDelete: true, enablePurgeProtection: false })],
      protectorKeys: [hsmKey(rsa({ enabled: false }))],
    });
    expect(weak["tde-key-vault-recoverable"].message).toMatch(/^Managed HSM rg-hsm\/hsm-1, which holds .*; purge protection is off$/);
    expect(weak["tde-key-validity"].message).toMatch(/; it is disabled$/);
  });

  it("is never matched with a vault of the same name, nor an HSM's key with a vault's", () => {
    const vault = keyVaultFactsOf("hsm-1", SUB, {
      vault: { id: vaultId, properties: { enableSoftDelete: true, enablePurgeProtection: true } },
    });
    const vaultKey = protectorKeyFactsOf({ vaultName: "hsm-1", keyName: "tde", version: V }, { key: { id: "k", properties: rsa() } });
    const f = judge({ tdeProtectors: [hsm()], keyVaults: [vault], protectorKeys: [vaultKey] });
    expect(f["tde-key-vault-recoverable"].verdict).toBe("unknown");
    expect(f["tde-key-validity"].verdict).toBe("unknown");
  });

  it("an HSM that is not listed fails tde-key-vault-recoverable with its code; its key is then left to that finding", () => {
    const failure = managedHsmNotListed(SUB, "hsm-1");
    const f = judge({
      tdeProtectors: [hsm()],
      keyVaults: [keyVaultFactsOf("hsm-1", SUB, { failure }, "managedHsm")],
      protectorKeys: [protectorKeyFactsOf({ vaultName: "hsm-1", keyName: "tde", version: V, managedHsm: true }, { failure })],
    });
    expect(f["tde-key-vault-recoverable"]).toMatchObject({
      verdict: "fail",
      properties: { readStatus: 0, readCode: "ManagedHsmNotListed" },
    });
    expect(f["tde-key-validity"]).toMatchObject({ verdict: "not-applicable" });
  });
});

describe("tde-key-validity", () => {
  const run = (k: ReturnType<typeof key>, policies?: Parameters<typeof resolveRuleSettings>[0]) =>
    judge({ tdeProtectors: [cmk()], keyVaults: [goodVault()], protectorKeys: [k] }, policies)["tde-key-validity"];

  it("passes an enabled RSA 2048 or RSA-HSM 3072 key inside its window; one without an expiry only with requireExpiry false", () => {
    expect(run(key(rsa())).verdict).toBe("pass");
    expect(run(key({ ...rsa({}, 3072), kty: "RSA-HSM" })).verdict).toBe("pass");
    const forever = key(rsa({ exp: undefined }));
    expect(run(forever)).toMatchObject({
      verdict: "fail",
      message: `The TDE protector key kv/tde/${V} of SQL server rg/sql-1 must be enabled, active, more than 30 days from expiry, and RSA or RSA-HSM of 2048 or 3072 bits; it has no expiration date`,
    });
    expect(run(forever, { "tde-key-validity": { requireExpiry: false } })).toMatchObject({
      verdict: "pass",
      message: expect.stringMatching(/, does not expire$/),
    });
  });

  it("requireAutoRotation and maxKeyAgeDays judge the protector's autoRotationEnabled and the version's age", () => {
    const judgeWith = (autoRotationEnabled: boolean | undefined, created: number, policies: Parameters<typeof resolveRuleSettings>[0]) => {
      const p = protectorFactsOf(server, {
        protector: {
          id: "p",
          properties: {
            serverKeyType: "AzureKeyVault",
            uri: `https://kv.vault.azure.net/keys/tde/${V}`,
            ...(autoRotationEnabled === undefined ? {} : { autoRotationEnabled }),
          },
        },
      });
      const k = key({ ...rsa({ created }) });
      return judge({ tdeProtectors: [p], keyVaults: [goodVault()], protectorKeys: [k] }, policies)["tde-key-validity"];
    };
    const young = NOW / 1000 - 10 * DAY;
    const old = NOW / 1000 - 400 * DAY;
    expect(judgeWith(false, old, undefined).verdict).toBe("pass");
    expect(judgeWith(false, young, { "tde-key-validity": { requireAutoRotation: true } })).toMatchObject({
      verdict: "fail",
      message: expect.stringMatching(
        /and rotated automatically by its server; its server does not rotate it automatically \(autoRotationEnabled is false\)$/,
      ),
      properties: { autoRotationEnabled: false, keyAgeDays: 10 },
    });
    expect(judgeWith(undefined, young, { "tde-key-validity": { requireAutoRotation: true } }).message).toMatch(
      /\(autoRotationEnabled is not reported\)$/,
    );
    expect(judgeWith(true, young, { "tde-key-validity": { requireAutoRotation: true } })).toMatchObject({
      verdict: "pass",
      message: expect.stringMatching(/; its server rotates it automatically$/),
    });
    const aged = { "tde-key-validity": { maxKeyAgeDays: 365 } };
    expect(judgeWith(false, old, aged)).toMatchObject({
      verdict: "fail",
      message: expect.stringMatching(
        /at most 365 days old unless its server rotates it automatically; it was created on 2025-04-27, 400 days ago, more than 365, and its server does not rotate it automatically \(autoRotationEnabled is false\)$/,
      ),
    });
    expect(judgeWith(true, old, aged)).toMatchObject({
      verdict: "pass",
      message: expect.stringMatching(/, created on 2025-04-27 \(400 days ago\); its server rotates it automatically$/),
    });
    expect(judgeWith(false, young, aged).verdict).toBe("pass");
    // Exactly at the bound passes: "older than" is strict.
    expect(judgeWith(false, NOW / 1000 - 365 * DAY, aged).verdict).toBe("pass");
    const unknownAge = protectorKeyFactsOf({ vaultName: "kv", keyName: "tde", version: V }, { key: { id: "k", properties: rsa() } });
    expect(run(unknownAge, aged).message).toMatch(/its creation time is not reported, so its age cannot be judged/);
  });

  it("carries the key's rotation policy and age in the finding's properties", () => {
    const k = key({
      ...rsa({ created: NOW / 1000 - 30 * DAY }),
      rotationPolicy: {
        attributes: { expiryTime: "P2Y" },
        lifetimeActions: [
          { trigger: { timeBeforeExpiry: "P60D" }, action: { type: "rotate" } },
          { trigger: { timeAfterCreate: "P90D" }, action: { type: "notify" } },
          { trigger: { timeAfterCreate: "P1D" } },
        ],
      },
    });
    expect(k.rotationPolicy).toEqual({
      expiryTime: "P2Y",
      lifetimeActions: [
        { action: "rotate", timeBeforeExpiry: "P60D" },
        { action: "notify", timeAfterCreate: "P90D" },
      ],
    });
    expect(run(k).properties).toMatchObject({
      keyCreated: "2026-05-02T00:00:00.000Z",
      keyAgeDays: 30,
      rotationPolicy: ["rotate P60D before expiry", "notify P90D after creation", "new versions expire after P2Y"],
    });
  });

  it("names every problem at once", () => {
    const f = run(key({ kty: "RSA", keySize: 1024, attributes: { enabled: false, exp: NOW / 1000 - DAY } }));
    expect(f.verdict).toBe("fail");
    expect(f.message).toBe(
      `The TDE protector key kv/tde/${V} of SQL server rg/sql-1 must be enabled, active, more than 30 days from expiry, and RSA or RSA-HSM of 2048 or 3072 bits; it is disabled; it expired on 2026-05-31; it is RSA of 1024 bits, not 2048 or 3072`,
    );
  });

  it("minDaysToExpiry: a key expiring in 20 days fails at 30 and passes at 10; exactly at the bound passes", () => {
    const soon = key(rsa({ exp: NOW / 1000 + 20 * DAY }));
    expect(run(soon).message).toMatch(/; it expires on 2026-06-21, in 20 days$/);
    expect(run(soon, { "tde-key-validity": { minDaysToExpiry: 10 } }).verdict).toBe("pass");
    expect(run(soon, { "tde-key-validity": { minDaysToExpiry: 20 } }).verdict).toBe("pass");
  });

  it("a versionless protector reads the key's current version; an EC-HSM key is refused by type", () => {
    const versionless = judge({
      tdeProtectors: [cmk("https://kv.vault.azure.net/keys/tde")],
      keyVaults: [goodVault()],
      protectorKeys: [protectorKeyFactsOf({ vaultName: "kv", keyName: "tde" }, { key: { id: "k", properties: rsa() } })],
    })["tde-key-validity"];
    expect(versionless).toMatchObject({ verdict: "pass", message: expect.stringMatching(/^the key kv\/tde is RSA 2048 bits/) });
    expect(run(key({ kty: "EC-HSM", curveName: "P-384", attributes: { enabled: true } })).message).toMatch(
      /; it is an EC-HSM P-384 key, not RSA or RSA-HSM$/,
    );
  });

  it("a key whose vault cannot be read is left to the vault's rule (one finding); a refused key is its own", () => {
    const unlisted = vaultNotListed(SUB, "kv");
    const f = judge({
      tdeProtectors: [cmk()],
      keyVaults: [keyVaultFactsOf("kv", SUB, { failure: unlisted })],
      protectorKeys: [protectorKeyFactsOf({ vaultName: "kv", keyName: "tde", version: V }, { failure: unlisted })],
    });
    expect([f["tde-key-vault-recoverable"].verdict, f["tde-key-validity"].verdict]).toEqual(["fail", "not-applicable"]);
    const refused = { status: 404, code: "ResourceNotFound", message: "gone", readAt: "t" };
    const g = judge({
      tdeProtectors: [cmk()],
      keyVaults: [goodVault()],
      protectorKeys: [protectorKeyFactsOf({ vaultName: "kv", keyName: "tde", version: V }, { failure: refused })],
    });
    expect(g["tde-key-validity"]).toMatchObject({ verdict: "fail", properties: { readStatus: 404, readCode: "ResourceNotFound" } });
  });
});
