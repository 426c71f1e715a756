import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSpec, responseValidator } from "../../../src/platform/schemas/swagger-schemas";
import { publishedOperation } from "../../../src/emulator/kit/published-operations";
import { versionHas } from "../../../src/emulator/kit/version-shape";
import { KEYVAULT_KEYS_SPEC, KEYVAULT_OPERATIONS, KEYVAULT_VAULTS_SPEC, type Key, type Vault } from "../../../src/services/keyvault/types";
import {
  DEV_ESTATE,
  estate,
  KEY_CUSTODY_ESTATE,
  SUB,
  startKeyCustody,
  vaultPath,
  type KeyCustodyHarness,
  type RawAnswer,
} from "./key-custody-kit";

/**
 * Every answer of the Key Vault service, at every api-version it accepts, validates against the
 * published schema of its operation in specs/keyvault/2023-07-01 (what older versions lack is absent;
 * what newer ones add, the schema allows), and carries exactly its version's properties. Error answers
 * validate against the operations' `default` response (CloudError).
 */

const SPEC_OF: Record<string, string> = {
  [KEYVAULT_OPERATIONS.getVault]: KEYVAULT_VAULTS_SPEC,
  [KEYVAULT_OPERATIONS.listVaultsBySubscription]: KEYVAULT_VAULTS_SPEC,
  [KEYVAULT_OPERATIONS.listVaultsByResourceGroup]: KEYVAULT_VAULTS_SPEC,
  [KEYVAULT_OPERATIONS.getKey]: KEYVAULT_KEYS_SPEC,
  [KEYVAULT_OPERATIONS.getKeyVersion]: KEYVAULT_KEYS_SPEC,
  [KEYVAULT_OPERATIONS.listKeys]: KEYVAULT_KEYS_SPEC,
};
const validators = new Map<string, ReturnType<typeof responseValidator>>();
function expectSpecValid(op: string, body: unknown, status = "200"): void {
  const k = `${op} ${status}`;
  let v = validators.get(k);
  if (!v) validators.set(k, (v = responseValidator(SPEC_OF[op], op, status)));
  expect(v(body).errors, `${op} ${status}: ${JSON.stringify(body).slice(0, 300)}`).toEqual([]);
}

function expectError(op: string, res: RawAnswer, status: number, code: string): void {
  expect(res.status).toBe(status);
  expectSpecValid(op, res.body, "default");
  expect((res.body as { error: { code: string; message: string } }).error).toMatchObject({ code, message: expect.any(String) });
}

async function allPages<T>(h: KeyCustodyHarness, first: RawAnswer, op: string): Promise<T[]> {
  const out: T[] = [];
  let res = first;
  for (let i = 0; i < 20; i++) {
    expect(res.status).toBe(200);
    expectSpecValid(op, res.body);
    const body = res.body as { value: T[]; nextLink?: string };
    out.push(...body.value);
    if (!body.nextLink) return out;
    res = await h.get(body.nextLink.slice(h.url.length));
  }
  throw new Error("too many pages");
}

/** The versions Azure publishes (specs/api-versions/Microsoft.KeyVault.json), and what each version's vault and key carry. */
const KEYVAULT_VAULT_API_VERSIONS = publishedOperation("Microsoft.KeyVault", "Vaults_Get").apiVersions;
const KEYVAULT_KEY_API_VERSIONS = publishedOperation("Microsoft.KeyVault", "Keys_Get").apiVersions;
const vaultHas = (version: string, path: string) => versionHas("Microsoft.KeyVault", "Microsoft.KeyVault/vaults", version, path);
const keyHas = (version: string, path: string) => versionHas("Microsoft.KeyVault", "Microsoft.KeyVault/vaults/keys", version, path);

function expectVaultShape(version: string, v: Vault): void {
  const p = v.properties!;
  if (!vaultHas(version, "properties.enablePurgeProtection")) expect(p, version).not.toHaveProperty("enablePurgeProtection");
  expect("enableRbacAuthorization" in p, `${version} rbac`).toBe(vaultHas(version, "properties.enableRbacAuthorization"));
  if (!vaultHas(version, "properties.softDeleteRetentionInDays")) expect(p).not.toHaveProperty("softDeleteRetentionInDays");
  else expect("softDeleteRetentionInDays" in p).toBe(p.enableSoftDelete === true);
  expect("provisioningState" in p, `${version} provisioningState`).toBe(vaultHas(version, "properties.provisioningState"));
  expect("systemData" in v, `${version} systemData`).toBe(vaultHas(version, "systemData"));
  expect("publicNetworkAccess" in p, `${version} publicNetworkAccess`).toBe(vaultHas(version, "properties.publicNetworkAccess"));
}

function expectKeyShape(version: string, k: Key, hasPolicy: boolean): void {
  const p = k.properties!;
  expect("exportable" in p.attributes!, `${version} exportable`).toBe(keyHas(version, "properties.attributes.exportable"));
  expect("rotationPolicy" in p, `${version} rotationPolicy`).toBe(keyHas(version, "properties.rotationPolicy") && hasPolicy);
  expect("systemData" in k, `${version} systemData`).toBe(keyHas(version, "systemData"));
  expect(p.keyUriWithVersion!.startsWith(`${p.keyUri}/`)).toBe(true);
}

const VARIANTS = [
  {
    name: "the key-custody test estate",
    seed: () => estate(KEY_CUSTODY_ESTATE),
    vaults: ["kv-kc-healthy", "kv-kc-nopurge", "kv-kc-nosoftdel"].map((v) => vaultPath(v)),
    locked: vaultPath("kv-kc-locked", "rg-kc-locked"),
    withPolicy: ["tde-healthy"],
  },
  {
    name: "the default estate",
    seed: () => estate(DEV_ESTATE),
    vaults: [vaultPath("kv-prod-tde", "rg-security")],
    locked: undefined,
    withPolicy: ["sql-prod-1-tde"],
  },
];

describe.each(VARIANTS)("Key Vault answers conform at every accepted api-version: $name", ({ seed, vaults, locked, withPolicy }) => {
  let h: KeyCustodyHarness;
  beforeAll(async () => {
    h = await startKeyCustody(seed());
  });
  afterAll(async () => {
    await h.close();
  });

  it("Vaults_Get, Vaults_ListBySubscription and Vaults_ListByResourceGroup", async () => {
    for (const version of KEYVAULT_VAULT_API_VERSIONS) {
      const bySub = await allPages<Vault>(
        h,
        await h.get(`/subscriptions/${SUB}/providers/Microsoft.KeyVault/vaults`, version),
        KEYVAULT_OPERATIONS.listVaultsBySubscription,
      );
      expect(bySub).toHaveLength(vaults.length);
      for (const path of vaults) {
        const one = await h.get(path, version);
        expect(one.status).toBe(200);
        expectSpecValid(KEYVAULT_OPERATIONS.getVault, one.body);
        expectVaultShape(version, one.body as Vault);
        expect(bySub).toContainEqual(one.body);
        const byGroup = await allPages<Vault>(
          h,
          await h.get(path.slice(0, path.lastIndexOf("/")), version),
          KEYVAULT_OPERATIONS.listVaultsByResourceGroup,
        );
        expect(byGroup).toContainEqual(one.body);
      }
    }
  });

  it("Keys_List, Keys_Get and Keys_GetVersion from 2019-09-01 on", async () => {
    for (const version of KEYVAULT_KEY_API_VERSIONS) {
      for (const path of vaults) {
        const keys = await allPages<Key>(h, await h.get(`${path}/keys`, version), KEYVAULT_OPERATIONS.listKeys);
        expect(keys.length).toBeGreaterThan(0);
        for (const k of keys) {
          const one = await h.get(`${path}/keys/${k.name}`, version);
          expect(one.status).toBe(200);
          expectSpecValid(KEYVAULT_OPERATIONS.getKey, one.body);
          expect(one.body).toEqual(k);
          expectKeyShape(version, k, withPolicy.includes(k.name!));
          const keyVersion = k.properties!.keyUriWithVersion!.split("/").pop()!;
          const ver = await h.get(`${path}/keys/${k.name}/versions/${keyVersion}`, version);
          expect(ver.status).toBe(200);
          expectSpecValid(KEYVAULT_OPERATIONS.getKeyVersion, ver.body);
          expect((ver.body as Key).properties).toEqual(k.properties);
        }
      }
    }
  });

  it("refuses other api-versions as Resource Manager does: keys before 2019-09-01, anything unpublished", async () => {
    const path = vaults[0];
    for (const version of ["2014-12-19-preview", "2023-07-01-preview", "2026-04-01", "2024-11-01-preview", "2026-02-01-preview"]) {
      expectError(KEYVAULT_OPERATIONS.getVault, await h.get(path, version), 400, "InvalidApiVersionParameter");
    }
    for (const version of ["2015-06-01", "2016-10-01", "2018-02-14", "2018-02-14-preview"]) {
      expect((await h.get(path, version)).status).toBe(200);
      expectError(KEYVAULT_OPERATIONS.listKeys, await h.get(`${path}/keys`, version), 400, "InvalidApiVersionParameter");
    }
    expectError(KEYVAULT_OPERATIONS.getVault, await h.get(path), 400, "MissingApiVersionParameter");
  });

  it("errors validate against CloudError: a missing vault, key or version, an unknown group, an unreadable vault", async () => {
    const path = vaults[0];
    expectError(KEYVAULT_OPERATIONS.getVault, await h.get(`${path}x`, "2023-07-01"), 404, "ResourceNotFound");
    expectError(KEYVAULT_OPERATIONS.getKey, await h.get(`${path}/keys/none`, "2023-07-01"), 404, "ResourceNotFound");
    expectError(KEYVAULT_OPERATIONS.getKeyVersion, await h.get(`${path}/keys/none/versions/0`, "2023-07-01"), 404, "ResourceNotFound");
    expectError(
      KEYVAULT_OPERATIONS.listVaultsByResourceGroup,
      await h.get(`/subscriptions/${SUB}/resourceGroups/rg-none/providers/Microsoft.KeyVault/vaults`, "2023-07-01"),
      404,
      "ResourceGroupNotFound",
    );
    if (locked) {
      for (const version of ["2016-10-01", "2023-07-01", "2025-05-01"]) {
        expectError(KEYVAULT_OPERATIONS.getVault, await h.get(locked, version), 403, "AuthorizationFailed");
      }
      expectError(KEYVAULT_OPERATIONS.listKeys, await h.get(`${locked}/keys`, "2019-09-01"), 403, "AuthorizationFailed");
      expectError(KEYVAULT_OPERATIONS.getKey, await h.get(`${locked}/keys/tde-locked`, "2024-11-01"), 403, "AuthorizationFailed");
    }
  });
});

describe("the spec itself", () => {
  it("declares CloudError as the default response of the six operations the client calls", () => {
    for (const [op, spec] of Object.entries(SPEC_OF)) {
      const doc = readSpec(spec) as {
        paths: Record<string, Record<string, { operationId: string; responses: Record<string, { schema?: { $ref: string } }> }>>;
      };
      const found = Object.values(doc.paths)
        .flatMap((m) => Object.values(m))
        .find((o) => o.operationId === op)!;
      expect(found, op).toBeDefined();
      expect(found.responses.default.schema?.$ref).toMatch(/CloudError$/);
    }
  });
});
