import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PolicyAnalyzer, UNKNOWN_VALUE, urnOf, type AnalyzerResourceInput, type Violation } from "../helpers/analyzer";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { estate, SUB } from "../services/keyvault/key-custody-kit";

/**
 * The pack over a user's own azure-native program, as the Pulumi engine sends it at preview: each
 * resource's inputs in the shapes of the provider's schema (specs/pulumi-azure-native/schema-excerpt.json),
 * outputs of other resources unknown (the engine's sentinel) with the property dependencies that say
 * where they flow from. What the program only references (an existing vault, key or server) is read
 * live from the emulator (the key-custody estate), as `check` reads it.
 */
let emu: TestEmulator;
let analyzer: PolicyAnalyzer;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: estate() });
  analyzer = await PolicyAnalyzer.start({
    env: { STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: emu.imdsEndpoint, ARM_SUBSCRIPTION_ID: SUB },
  });
});

afterAll(async () => {
  await analyzer?.stop();
  await emu?.close();
});

const RG = "rg-app";
const T = {
  server: "azure-native:sql:Server",
  database: "azure-native:sql:Database",
  tde: "azure-native:sql:TransparentDataEncryption",
  protector: "azure-native:sql:EncryptionProtector",
  serverKey: "azure-native:sql:ServerKey",
  vault: "azure-native:keyvault:Vault",
  key: "azure-native:keyvault:Key",
} as const;

/** A resource of the program: its URN from its type and name. */
function res(
  type: string,
  name: string,
  props: Record<string, unknown>,
  propertyDependencies?: Record<string, string[]>,
): AnalyzerResourceInput {
  return { type, name, urn: urnOf(type, name), props, ...(propertyDependencies ? { propertyDependencies } : {}) };
}

const server = (identity?: Record<string, unknown>) =>
  res(T.server, "server", {
    resourceGroupName: RG,
    serverName: "sql-app",
    location: "westeurope",
    administratorLogin: "sqladmin",
    ...(identity ? { identity } : {}),
  });

/** The chain a team writes: Vault, Key in it, ServerKey with the key's URI, EncryptionProtector naming the server key. */
function keyChain(vaultProps: Record<string, unknown>, keyProps: Record<string, unknown>): AnalyzerResourceInput[] {
  const vault = res(T.vault, "vault", {
    resourceGroupName: RG,
    vaultName: "kv-app",
    location: "westeurope",
    properties: { tenantId: "11111111-1111-1111-1111-111111111111", sku: { family: "A", name: "standard" }, ...vaultProps },
  });
  const key = res(
    T.key,
    "key",
    { resourceGroupName: RG, vaultName: UNKNOWN_VALUE, keyName: "tde", properties: keyProps },
    { vaultName: [vault.urn!] },
  );
  const serverKey = res(
    T.serverKey,
    "server-key",
    { resourceGroupName: RG, serverName: UNKNOWN_VALUE, serverKeyType: "AzureKeyVault", keyName: UNKNOWN_VALUE, uri: UNKNOWN_VALUE },
    { serverName: [urnOf(T.server, "server")], uri: [key.urn!] },
  );
  const protector = res(
    T.protector,
    "protector",
    {
      resourceGroupName: RG,
      serverName: UNKNOWN_VALUE,
      encryptionProtectorName: "current",
      serverKeyType: "AzureKeyVault",
      serverKeyName: UNKNOWN_VALUE,
    },
    { serverName: [urnOf(T.server, "server")], serverKeyName: [serverKey.urn!] },
  );
  return [vault, key, serverKey, protector];
}

const RSA_2048 = { kty: "RSA", keySize: 2048 };
const in2Years = () => Math.floor(Date.now() / 1000) + 2 * 365 * 86_400;
const on = (v: Violation[], policy: string) =>
  v.filter((x) => x.policyName === policy).map((x) => [x.urn.split("::").pop(), x.enforcementLevel, x.detail]);

describe("AnalyzeStack over an azure-native program (the planned state)", () => {
  it("a TransparentDataEncryption with state Disabled fails sql-tde-enabled (mandatory) on that resource; Enabled passes", async () => {
    // sql-tde-enabled is a resource policy: the engine's Analyze sends the one resource, its names from other resources unknown.
    const tde = (state: unknown) =>
      res(T.tde, "tde", { resourceGroupName: RG, serverName: UNKNOWN_VALUE, databaseName: "orders", tdeName: "current", state });
    expect(on(await analyzer.analyze(tde("Disabled")), "sql-tde-enabled")).toEqual([
      // No URN: a resource policy's violation is the analyzed resource's.
      [
        "",
        "mandatory",
        "Database rg-app/(known after apply)/orders must have transparent data encryption Enabled; the stack sets it to Disabled",
      ],
    ]);
    expect(on(await analyzer.analyze(tde("Enabled")), "sql-tde-enabled")).toEqual([]);
    // Unknown at preview: never a pass, never a failure (checkResources says "unknown": planned-program.test.ts).
    expect(on(await analyzer.analyze(tde(UNKNOWN_VALUE)), "sql-tde-enabled")).toEqual([]);
  });

  it("an EncryptionProtector on a Key without expiry in a Vault without purge protection fails tde-key-validity and tde-key-vault-recoverable", async () => {
    const v = await analyzer.analyzeStack([server({ type: "SystemAssigned" }), ...keyChain({}, RSA_2048)]);
    expect(on(v, "tde-key-validity")).toEqual([
      [
        "protector",
        "mandatory",
        "The TDE protector key kv-app/tde of SQL server rg-app/sql-app must be enabled, active, more than 30 days from expiry, and RSA or RSA-HSM of 2048 or 3072 bits; it has no expiration date",
      ],
    ]);
    expect(on(v, "tde-key-vault-recoverable")).toHaveLength(1);
    expect(on(v, "tde-key-vault-recoverable")[0][2]).toMatch(/kv-app.*purge protection/);
    // A new server's system-assigned identity has no principal id until Azure creates it: not judged yet.
    expect(on(v, "tde-key-access")).toEqual([]);
  });

  it("the same program fixed (expiry in two years, purge protection on) passes both", async () => {
    const v = await analyzer.analyzeStack([
      server({ type: "SystemAssigned" }),
      ...keyChain({ enablePurgeProtection: true }, { ...RSA_2048, attributes: { expires: in2Years() } }),
    ]);
    expect(on(v, "tde-key-validity")).toEqual([]);
    expect(on(v, "tde-key-vault-recoverable")).toEqual([]);
  });

  it("a Server without identity under a customer-managed protector fails tde-key-access", async () => {
    const v = await analyzer.analyzeStack([server(), ...keyChain({ enablePurgeProtection: true }, RSA_2048)]);
    expect(on(v, "tde-key-access")).toEqual([
      [
        "protector",
        "mandatory",
        expect.stringMatching(
          /^SQL server rg-app\/sql-app must be able to use its TDE protector key kv-app\/tde; it has no managed identity \(identity type None\)/,
        ),
      ],
    ]);
  });

  it("unknown inputs are never a pass nor a failure: a key's properties, a vault's purge protection, a protector's key", async () => {
    const unknownKey = await analyzer.analyzeStack([
      server(),
      ...keyChain({ enablePurgeProtection: true }, { kty: "RSA", keySize: UNKNOWN_VALUE }),
    ]);
    expect(on(unknownKey, "tde-key-validity")).toEqual([]);
    const unknownVault = await analyzer.analyzeStack([server(), ...keyChain({ enablePurgeProtection: UNKNOWN_VALUE }, RSA_2048)]);
    expect(on(unknownVault, "tde-key-vault-recoverable")).toEqual([]);
    // A server key name from elsewhere, not followed to any resource: which key it is, is not known.
    const protector = res(T.protector, "protector", {
      resourceGroupName: RG,
      serverName: "sql-app",
      serverKeyType: "AzureKeyVault",
      serverKeyName: UNKNOWN_VALUE,
    });
    const v = await analyzer.analyzeStack([server(), protector]);
    expect(v.filter((x) => x.policyName.startsWith("tde-key"))).toEqual([]);
  });
});

describe("what the program only references is read live, as check reads it", () => {
  it("a Key created in an existing vault: the vault is read (no purge protection: tde-key-vault-recoverable fails)", async () => {
    const key = res(T.key, "key", {
      resourceGroupName: "rg-kc-keys",
      vaultName: "kv-kc-nopurge",
      keyName: "tde-new",
      properties: { ...RSA_2048, attributes: { expires: in2Years() } },
    });
    const serverKey = res(
      T.serverKey,
      "server-key",
      { resourceGroupName: RG, serverName: "sql-app", serverKeyType: "AzureKeyVault", uri: UNKNOWN_VALUE },
      { uri: [key.urn!] },
    );
    const protector = res(
      T.protector,
      "protector",
      { resourceGroupName: RG, serverName: "sql-app", serverKeyType: "AzureKeyVault", serverKeyName: UNKNOWN_VALUE },
      { serverKeyName: [serverKey.urn!] },
    );
    const v = await analyzer.analyzeStack([server({ type: "SystemAssigned" }), key, serverKey, protector]);
    expect(on(v, "tde-key-validity")).toEqual([]);
    expect(on(v, "tde-key-vault-recoverable")).toEqual([
      [
        "protector",
        "mandatory",
        "Key Vault rg-kc-keys/kv-kc-nopurge, which holds the TDE protector of SQL server rg-app/sql-app, must have soft delete and purge protection enabled; purge protection is off",
      ],
    ]);
  });

  it("a protector on an existing server naming an existing key by URI: the key and the server's identity are read (expired key: tde-key-validity fails)", async () => {
    const uri = "https://kv-kc-healthy.vault.azure.net/keys/tde-expired/33333333333333333333333333333333";
    const serverKey = res(T.serverKey, "server-key", {
      resourceGroupName: "rg-kc-data",
      serverName: "sql-kc-expired",
      serverKeyType: "AzureKeyVault",
      keyName: "kv-kc-healthy_tde-expired_33333333333333333333333333333333",
      uri,
    });
    const protector = res(T.protector, "protector", {
      resourceGroupName: "rg-kc-data",
      serverName: "sql-kc-expired",
      serverKeyType: "AzureKeyVault",
      serverKeyName: "kv-kc-healthy_tde-expired_33333333333333333333333333333333",
    });
    const v = await analyzer.analyzeStack([serverKey, protector]);
    expect(on(v, "tde-key-validity")).toEqual([
      ["protector", "mandatory", expect.stringMatching(/tde-expired\/33333333333333333333333333333333 .*; it expired on /)],
    ]);
    // The live server's identity is in the vault's access policies: tde-key-access passes, the vault is recoverable.
    expect(on(v, "tde-key-access")).toEqual([]);
    expect(on(v, "tde-key-vault-recoverable")).toEqual([]);
  });
});
