import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorReply } from "../../../src/emulator/kit/emulator-app";
import type { LocalService } from "../../../src/emulator/kit/local-service";
import { imdsLocal } from "../../../src/emulator/services/imds/imds-local";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { KeyVaultClient } from "../../../src/services/keyvault/client";
import { SqlClient } from "../../../src/services/sql/client";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { recordingLogger } from "./key-custody-kit";

/**
 * The published examples (specs/…/examples, byte-for-byte copies) answered as a service would answer
 * them, read through the clients: each is handed on exactly as published, without a drift warning.
 * Then answers that drift as real services do (nulls, new enum values, new properties) are read
 * tolerantly: kept unchanged, with one warning for what the spec does not know.
 */

interface Example {
  parameters: Record<string, string>;
  responses: { "200": { body: unknown } };
}

function example(path: string): Example {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, "specs", path), "utf8")) as Example;
}

const SQL = "sql/Microsoft.Sql/preview/2015-05-01-preview/examples";
/** The protector is read at 2021-11-01 (its `autoRotationEnabled`); server keys stay at 2015-05-01-preview. */
const SQL_PROTECTOR = "sql/Microsoft.Sql/stable/2021-11-01/examples";
const KV = "keyvault/2023-07-01/examples";
const EXAMPLES = {
  protectorGet: example(`${SQL_PROTECTOR}/EncryptionProtectorGet.json`),
  protectorList: example(`${SQL_PROTECTOR}/EncryptionProtectorList.json`),
  keyGet: example(`${SQL}/ServerKeyGet.json`),
  keyList: example(`${SQL}/ServerKeyList.json`),
  vaultGet: example(`${KV}/getVault.json`),
  vaultKeyGet: example(`${KV}/getKey.json`),
};

const body = (e: Example) => e.responses["200"].body;
const sqlServer = (p: Record<string, string>) =>
  `/subscriptions/${p.subscriptionId}/resourceGroups/${p.resourceGroupName}/providers/Microsoft.Sql/servers/${p.serverName}`;
const kvVault = (p: Record<string, string>) =>
  `/subscriptions/${p.subscriptionId}/resourceGroups/${p.resourceGroupName}/providers/Microsoft.KeyVault/vaults/${p.vaultName}`;

/** Answers drifting as real services do, for the tolerance tests, under resource group `drift`. */
const DRIFT_SERVER = "/subscriptions/s/resourceGroups/drift/providers/Microsoft.Sql/servers/srv";
const DRIFT_VAULT = "/subscriptions/s/resourceGroups/drift/providers/Microsoft.KeyVault/vaults/kv-drift";
const DRIFT: Record<string, EmulatorReply> = {
  protector: {
    status: 200,
    body: {
      id: `${DRIFT_SERVER}/encryptionProtector/current`,
      name: "current",
      kind: null,
      location: null,
      properties: { serverKeyName: "hsm_key_1", serverKeyType: "ManagedHsm", uri: null, autoRotationEnabled: true, keyVersion: "1" },
    },
  },
  vault: {
    status: 200,
    body: {
      id: DRIFT_VAULT,
      name: "kv-drift",
      properties: {
        tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47",
        sku: { family: "A", name: "standard" },
        enablePurgeProtection: null,
        brandNew: { x: 1 },
      },
    },
  },
  key: {
    status: 200,
    body: {
      id: `${DRIFT_VAULT}/keys/k`,
      name: "k",
      properties: {
        attributes: { enabled: true, nbf: null, exp: null, recoveryLevel: "CustomizedRecoverable" },
        kty: "OKP",
        keySize: null,
      },
    },
  },
};

const examplesService: LocalService = {
  name: "examples",
  seedSchema: { type: "object" },
  initialState: () => ({}),
  mount(ctx) {
    const protectorVersion = [EXAMPLES.protectorGet.parameters["api-version"]];
    const sqlVersion = [EXAMPLES.keyGet.parameters["api-version"]];
    const kvVersion = [EXAMPLES.vaultGet.parameters["api-version"]];
    ctx.arm("GET", `${sqlServer(EXAMPLES.protectorGet.parameters)}/encryptionProtector/current`, protectorVersion, () => ({
      status: 200,
      body: body(EXAMPLES.protectorGet),
    }));
    ctx.arm("GET", `${sqlServer(EXAMPLES.protectorList.parameters)}/encryptionProtector`, protectorVersion, () => ({
      status: 200,
      body: body(EXAMPLES.protectorList),
    }));
    ctx.arm("GET", `${sqlServer(EXAMPLES.keyList.parameters)}/keys`, sqlVersion, () => ({ status: 200, body: body(EXAMPLES.keyList) }));
    ctx.arm("GET", `${sqlServer(EXAMPLES.keyGet.parameters)}/keys/${EXAMPLES.keyGet.parameters.keyName}`, sqlVersion, () => ({
      status: 200,
      body: body(EXAMPLES.keyGet),
    }));
    ctx.arm("GET", kvVault(EXAMPLES.vaultGet.parameters), kvVersion, () => ({ status: 200, body: body(EXAMPLES.vaultGet) }));
    ctx.arm("GET", `${kvVault(EXAMPLES.vaultKeyGet.parameters)}/keys/${EXAMPLES.vaultKeyGet.parameters.keyName}`, kvVersion, () => ({
      status: 200,
      body: body(EXAMPLES.vaultKeyGet),
    }));
    ctx.arm("GET", `${DRIFT_SERVER}/encryptionProtector/current`, protectorVersion, () => DRIFT.protector);
    ctx.arm("GET", DRIFT_VAULT, kvVersion, () => DRIFT.vault);
    ctx.arm("GET", `${DRIFT_VAULT}/keys/k`, kvVersion, () => DRIFT.key);
  },
};

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ services: [imdsLocal as LocalService, examplesService] });
});
afterAll(() => t.close());

function clients() {
  const logger = recordingLogger();
  const opts = { endpoint: t.url, credential: t.credential, retry: FAST_RETRY, logger, validation: "all" as const };
  return { logger, sql: new SqlClient(opts), keyVault: new KeyVaultClient(opts) };
}

const server = (p: Record<string, string>) => ({
  subscriptionId: p.subscriptionId,
  resourceGroup: p.resourceGroupName,
  server: p.serverName,
});
const vault = (p: Record<string, string>) => ({ subscriptionId: p.subscriptionId, resourceGroup: p.resourceGroupName, vault: p.vaultName });

describe("the published examples parse through the clients, handed on as published", () => {
  it("Microsoft.Sql 2021-11-01 EncryptionProtectorGet, EncryptionProtectorList; 2015-05-01-preview ServerKeyGet, ServerKeyList", async () => {
    const { sql, logger } = clients();
    const protector = await sql.getEncryptionProtector(server(EXAMPLES.protectorGet.parameters));
    expect(protector).toEqual(body(EXAMPLES.protectorGet));
    expect(protector.properties?.autoRotationEnabled).toBe(false);
    expect(await sql.listEncryptionProtectors(server(EXAMPLES.protectorList.parameters))).toEqual(
      (body(EXAMPLES.protectorList) as { value: unknown[] }).value,
    );
    // The published ServerKeyGet names the key after its server: carried through as it is.
    const k = await sql.getServerKey(server(EXAMPLES.keyGet.parameters), EXAMPLES.keyGet.parameters.keyName);
    expect(k).toEqual(body(EXAMPLES.keyGet));
    expect(k.name).toBe("sqlcrudtest-4645");
    const keys = await sql.listServerKeys(server(EXAMPLES.keyList.parameters));
    expect(keys).toEqual((body(EXAMPLES.keyList) as { value: unknown[] }).value);
    expect(keys.map((x) => x.properties?.serverKeyType)).toEqual(["AzureKeyVault", "AzureKeyVault", "ServiceManaged"]);
    expect(logger.warnings).toEqual([]);
  });

  it("Microsoft.KeyVault 2023-07-01: getVault, getKey", async () => {
    const { keyVault, logger } = clients();
    const v = await keyVault.getVault(vault(EXAMPLES.vaultGet.parameters));
    expect(v).toEqual(body(EXAMPLES.vaultGet));
    // The example vault never had purge protection set: the property is absent, not false.
    expect(v.properties).not.toHaveProperty("enablePurgeProtection");
    const k = await keyVault.getKey({ ...vault(EXAMPLES.vaultKeyGet.parameters), key: EXAMPLES.vaultKeyGet.parameters.keyName });
    expect(k).toEqual(body(EXAMPLES.vaultKeyGet));
    expect(k.properties).toMatchObject({ kty: "RSA", keySize: 2048, attributes: { enabled: true, recoveryLevel: "Purgeable" } });
    expect(logger.warnings).toEqual([]);
  });
});

describe("answers that drift from the specs are read tolerantly", () => {
  it("nulls read as absent, new properties kept, a new enum value carried through with one warning", async () => {
    const { sql, keyVault, logger } = clients();
    const p = await sql.getEncryptionProtector({ subscriptionId: "s", resourceGroup: "drift", server: "srv" });
    expect(p).toEqual(DRIFT.protector.body);
    const v = await keyVault.getVault({ subscriptionId: "s", resourceGroup: "drift", vault: "kv-drift" });
    expect(v).toEqual(DRIFT.vault.body);
    const k = await keyVault.getKey({ subscriptionId: "s", resourceGroup: "drift", vault: "kv-drift", key: "k" });
    expect(k).toEqual(DRIFT.key.body);
    const warnings = logger.warnings.join("\n");
    expect(warnings).toMatch(
      /EncryptionProtectors_Get: response differs from the published schema: \/properties\/serverKeyType must be equal to one of the allowed values/,
    );
    expect(warnings).toMatch(
      /Keys_Get: response differs from the published schema: \/properties\/kty must be equal to one of the allowed values/,
    );
    expect(warnings).toMatch(/\/properties\/attributes\/recoveryLevel must be equal to one of the allowed values/);
    // Nulls and unknown properties are not drift worth a warning.
    expect(warnings).not.toMatch(/null|brandNew|keyVersion|autoRotationEnabled|enablePurgeProtection|nbf|exp\b/);
  });
});
