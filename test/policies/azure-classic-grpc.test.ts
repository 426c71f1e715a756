import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PolicyAnalyzer, UNKNOWN_VALUE, urnOf, type AnalyzerResourceInput, type Violation } from "../helpers/analyzer";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { estate, SUB } from "../services/keyvault/key-custody-kit";

/**
 * The pack over a user's program of the older `azure` provider, as the engine sends it at preview:
 * inputs in the shapes of its schema (specs/pulumi-azure/schema-excerpt.json, v6.39.0), outputs of
 * other resources unknown with the property dependencies that say where they flow from.
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

const T = {
  server: "azure:mssql/server:Server",
  database: "azure:mssql/database:Database",
  tde: "azure:mssql/serverTransparentDataEncryption:ServerTransparentDataEncryption",
  vault: "azure:keyvault/keyVault:KeyVault",
  key: "azure:keyvault/key:Key",
} as const;

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
    name: "sql-app",
    resourceGroupName: "rg-app",
    location: "westeurope",
    version: "12.0",
    ...(identity ? { identity } : {}),
  });

/** KeyVault, Key in it (`keyVaultId` from the vault), ServerTransparentDataEncryption with the key's id (its versioned URI). */
function keyChain(vaultProps: Record<string, unknown>, keyProps: Record<string, unknown>): AnalyzerResourceInput[] {
  const vault = res(T.vault, "vault", {
    name: "kv-app",
    resourceGroupName: "rg-app",
    location: "westeurope",
    skuName: "standard",
    tenantId: "11111111-1111-1111-1111-111111111111",
    ...vaultProps,
  });
  const key = res(
    T.key,
    "key",
    { name: "tde", keyVaultId: UNKNOWN_VALUE, keyType: "RSA", keySize: 2048, keyOpts: ["wrapKey", "unwrapKey"], ...keyProps },
    { keyVaultId: [vault.urn!] },
  );
  const tde = res(
    T.tde,
    "tde",
    { serverId: UNKNOWN_VALUE, keyVaultKeyId: UNKNOWN_VALUE },
    { serverId: [urnOf(T.server, "server")], keyVaultKeyId: [key.urn!] },
  );
  return [vault, key, tde];
}

const on = (v: Violation[], policy: string) =>
  v.filter((x) => x.policyName === policy).map((x) => [x.urn.split("::").pop(), x.enforcementLevel, x.detail]);

describe("AnalyzeStack over an azure (classic) program", () => {
  it("an mssql Database with transparentDataEncryptionEnabled false fails sql-tde-enabled; left to the provider's default (true) it passes", async () => {
    const db = (props: Record<string, unknown>) =>
      res(T.database, "db", {
        name: "orders",
        serverId: "/subscriptions/" + SUB + "/resourceGroups/rg-app/providers/Microsoft.Sql/servers/sql-app",
        ...props,
      });
    expect(on(await analyzer.analyze(db({ transparentDataEncryptionEnabled: false })), "sql-tde-enabled")).toEqual([
      ["", "mandatory", "Database rg-app/sql-app/orders must have transparent data encryption Enabled; the stack sets it to Disabled"],
    ]);
    expect(on(await analyzer.analyze(db({})), "sql-tde-enabled")).toEqual([]);
    expect(on(await analyzer.analyze(db({ transparentDataEncryptionEnabled: UNKNOWN_VALUE })), "sql-tde-enabled")).toEqual([]);
  });

  it("ServerTransparentDataEncryption on a Key without expirationDate in a KeyVault without purge protection fails tde-key-validity and tde-key-vault-recoverable", async () => {
    const v = await analyzer.analyzeStack([server({ type: "SystemAssigned" }), ...keyChain({}, {})]);
    expect(on(v, "tde-key-validity")).toEqual([
      [
        "tde",
        "mandatory",
        "The TDE protector key kv-app/tde of SQL server rg-app/sql-app must be enabled, active, more than 30 days from expiry, and RSA or RSA-HSM of 2048 or 3072 bits; it has no expiration date",
      ],
    ]);
    expect(on(v, "tde-key-vault-recoverable")).toEqual([
      [
        "tde",
        "mandatory",
        "Key Vault rg-app/kv-app, which holds the TDE protector of SQL server rg-app/sql-app, must have soft delete and purge protection enabled; purge protection is off",
      ],
    ]);
    expect(on(v, "tde-key-access")).toEqual([]);
  });

  it("fixed (expirationDate in two years, purgeProtectionEnabled) it passes both", async () => {
    const expires = new Date(Date.now() + 2 * 365 * 86_400_000).toISOString().replace(/\.\d+Z$/, "Z");
    const v = await analyzer.analyzeStack([
      server({ type: "SystemAssigned" }),
      ...keyChain({ purgeProtectionEnabled: true }, { expirationDate: expires }),
    ]);
    expect(on(v, "tde-key-validity")).toEqual([]);
    expect(on(v, "tde-key-vault-recoverable")).toEqual([]);
  });

  it("an mssql Server without identity under a customer-managed key fails tde-key-access", async () => {
    const v = await analyzer.analyzeStack([server(), ...keyChain({ purgeProtectionEnabled: true }, {})]);
    expect(on(v, "tde-key-access")).toEqual([
      [
        "tde",
        "mandatory",
        "SQL server rg-app/sql-app must be able to use its TDE protector key kv-app/tde; it has no managed identity (identity type None); Azure reaches a customer-managed key only through the server's managed identity",
      ],
    ]);
  });

  it("unknown inputs are never a pass nor a failure: a key's size, a vault's purge protection, a key id from nowhere", async () => {
    expect(
      on(
        await analyzer.analyzeStack([server(), ...keyChain({ purgeProtectionEnabled: true }, { keySize: UNKNOWN_VALUE })]),
        "tde-key-validity",
      ),
    ).toEqual([]);
    expect(
      on(await analyzer.analyzeStack([server(), ...keyChain({ purgeProtectionEnabled: UNKNOWN_VALUE }, {})]), "tde-key-vault-recoverable"),
    ).toEqual([]);
    const tde = res(T.tde, "tde", { serverId: UNKNOWN_VALUE, keyVaultKeyId: UNKNOWN_VALUE }, { serverId: [urnOf(T.server, "server")] });
    expect((await analyzer.analyzeStack([server(), tde])).filter((x) => x.policyName.startsWith("tde-key"))).toEqual([]);
  });

  it("a key id naming an existing key: the key and its vault are read live (kv-kc-nopurge: no purge protection)", async () => {
    const tde = res(
      T.tde,
      "tde",
      { serverId: UNKNOWN_VALUE, keyVaultKeyId: "https://kv-kc-nopurge.vault.azure.net/keys/tde-nopurge/11111111111111111111111111111111" },
      { serverId: [urnOf(T.server, "server")] },
    );
    const v = await analyzer.analyzeStack([server({ type: "SystemAssigned" }), tde]);
    expect(on(v, "tde-key-vault-recoverable")).toEqual([
      [
        "tde",
        "mandatory",
        "Key Vault rg-kc-keys/kv-kc-nopurge, which holds the TDE protector of SQL server rg-app/sql-app, must have soft delete and purge protection enabled; purge protection is off",
      ],
    ]);
  });
});
