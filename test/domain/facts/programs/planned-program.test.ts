import { describe, expect, it } from "vitest";
import { newClientSet } from "../../../../src/clients/client-set";
import { allRules, findRule } from "../../../../src/domain/compliance/registry";
import type { ResourceInput } from "../../../../src/domain/facts/fact-kind";
import { UNKNOWN } from "../../../../src/platform/unknown-value";
import { checkResources } from "../../../../src/usecases/check";

/**
 * A user's own program judged on what it plans, without a running pack: an input unknown at
 * preview makes the finding `unknown`, never a pass and never a failure. No live read happens here
 * (everything judged is declared by the program).
 */
const known = <T>(read: () => T) => read();
const clients = newClientSet({ ARM_SUBSCRIPTION_ID: "00000000-0000-0000-0000-000000000000" });
const ALL = allRules();

async function verdicts(ruleId: string, resources: ResourceInput[]): Promise<string[]> {
  const rule = findRule(ruleId)!;
  const r = await checkResources({ rules: [rule], resources, settings: {}, exemptions: [], context: { known, clients } });
  return r.findings.filter((f) => f.ruleId === ruleId).map((f) => f.verdict);
}

const urn = (type: string, name: string) => `urn:pulumi:dev::app::${type}::${name}`;
const tde = (state: unknown): ResourceInput => ({
  type: "azure-native:sql:TransparentDataEncryption",
  urn: urn("azure-native:sql:TransparentDataEncryption", "tde"),
  props: { resourceGroupName: "rg", serverName: "sql", databaseName: "db", state },
});
const classicDb = (enabled: unknown): ResourceInput => ({
  type: "azure:mssql/database:Database",
  props: {
    name: "db",
    serverId: "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Sql/servers/sql",
    ...(enabled === "absent" ? {} : { transparentDataEncryptionEnabled: enabled }),
  },
});

describe("planned state of a user's program", () => {
  it("the rules it is judged by are registered", () => {
    for (const id of ["sql-tde-enabled", "tde-key-validity", "tde-key-vault-recoverable", "tde-key-access"])
      expect(ALL.map((r) => r.id)).toContain(id);
  });

  it("azure-native TDE: Disabled fails, Enabled passes, unknown is unknown", async () => {
    expect(await verdicts("sql-tde-enabled", [tde("Disabled")])).toEqual(["fail"]);
    expect(await verdicts("sql-tde-enabled", [tde("Enabled")])).toEqual(["pass"]);
    expect(await verdicts("sql-tde-enabled", [tde(UNKNOWN)])).toEqual(["unknown"]);
  });

  it("azure provider: transparentDataEncryptionEnabled false fails, absent is the provider's default (true), unknown is unknown", async () => {
    expect(await verdicts("sql-tde-enabled", [classicDb(false)])).toEqual(["fail"]);
    expect(await verdicts("sql-tde-enabled", [classicDb("absent")])).toEqual(["pass"]);
    expect(await verdicts("sql-tde-enabled", [classicDb(UNKNOWN)])).toEqual(["unknown"]);
  });

  it("a key whose size is unknown, a vault whose purge protection is unknown: unknown, not pass", async () => {
    const vault = (purge: unknown): ResourceInput => ({
      type: "azure-native:keyvault:Vault",
      urn: urn("azure-native:keyvault:Vault", "vault"),
      props: { resourceGroupName: "rg", vaultName: "kv", properties: { enablePurgeProtection: purge } },
    });
    const key = (size: unknown): ResourceInput => ({
      type: "azure-native:keyvault:Key",
      urn: urn("azure-native:keyvault:Key", "key"),
      props: {
        resourceGroupName: "rg",
        vaultName: "kv",
        keyName: "k",
        properties: { kty: "RSA", keySize: size, attributes: { expires: 4_102_444_800 } },
      },
    });
    const protector: ResourceInput = {
      type: "azure-native:sql:EncryptionProtector",
      urn: urn("azure-native:sql:EncryptionProtector", "protector"),
      props: {
        resourceGroupName: "rg",
        serverName: "sql",
        serverKeyType: "AzureKeyVault",
        serverKeyName: "kv_k_0123456789abcdef0123456789abcdef",
      },
    };
    const server: ResourceInput = {
      type: "azure-native:sql:Server",
      urn: urn("azure-native:sql:Server", "server"),
      props: { resourceGroupName: "rg", serverName: "sql", identity: { type: "SystemAssigned", principalId: UNKNOWN } },
    };
    expect(await verdicts("tde-key-validity", [vault(true), key(UNKNOWN), protector, server])).toEqual(["unknown"]);
    expect(await verdicts("tde-key-validity", [vault(true), key(2048), protector, server])).toEqual(["pass"]);
    expect(await verdicts("tde-key-vault-recoverable", [vault(UNKNOWN), key(2048), protector, server])).toEqual(["unknown"]);
    expect(await verdicts("tde-key-vault-recoverable", [vault(true), key(2048), protector, server])).toEqual(["pass"]);
    // The server's principal id is given by Azure when it creates the identity: unknown until then.
    expect(await verdicts("tde-key-access", [vault(true), key(2048), protector, server])).toEqual(["unknown"]);
  });
});

describe("a key the provider already created (its outputs, at the top level)", () => {
  it("is judged on its kty, keySize and attributes outputs", async () => {
    const vault: ResourceInput = {
      type: "azure-native:keyvault:Vault",
      props: { resourceGroupName: "rg", vaultName: "kv", properties: { enablePurgeProtection: true } },
    };
    const key = (expires: number): ResourceInput => ({
      type: "azure-native:keyvault:Key",
      props: { vaultName: "kv", keyName: "k", kty: "RSA", keySize: 2048, attributes: { enabled: true, expires, created: 1_700_000_000 } },
    });
    const protector: ResourceInput = {
      type: "azure-native:sql:EncryptionProtector",
      props: {
        resourceGroupName: "rg",
        serverName: "sql",
        serverKeyType: "AzureKeyVault",
        uri: "https://kv.vault.azure.net/keys/k/0123456789abcdef0123456789abcdef",
      },
    };
    const server: ResourceInput = { type: "azure-native:sql:Server", props: { resourceGroupName: "rg", serverName: "sql" } };
    expect(await verdicts("tde-key-validity", [vault, key(4_102_444_800), protector, server])).toEqual(["pass"]);
    expect(await verdicts("tde-key-validity", [vault, key(1_700_000_100), protector, server])).toEqual(["fail"]);
  });
});
