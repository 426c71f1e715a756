import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Ajv from "ajv";
import { responseValidator } from "../../../src/platform/schemas/swagger-schemas";
import { publishedOperation } from "../../../src/emulator/kit/published-operations";
import { versionHas } from "../../../src/emulator/kit/version-shape";
import {
  SQL_ENCRYPTION_PROTECTORS_SPEC,
  SQL_KEY_CUSTODY_OPERATIONS,
  SQL_SERVER_KEYS_SPEC,
  type EncryptionProtector,
  type ServerKey,
} from "../../../src/services/sql/key-custody-types";
import {
  DEV_ESTATE,
  estate,
  KEY_CUSTODY_ESTATE,
  serverPath,
  startKeyCustody,
  type KeyCustodyHarness,
  type RawAnswer,
} from "../keyvault/key-custody-kit";

/**
 * Every answer the emulator gives for a server's encryption protector and keys, at every api-version
 * it accepts, validates against the published schema of that operation (the spec folders shipped:
 * 2021-11-01 for the protector, 2015-05-01-preview for server keys; other versions add or drop only
 * optional properties, which the schemas allow), and carries
 * exactly its version's additions as the recorded specs give them (specs/api-versions/Microsoft.Sql.json:
 * `autoRotationEnabled` from 2020-08-01-preview on the protector and 2020-11-01-preview on keys,
 * `keyVersion` from 2024-11-01-preview). The spec declares no schema for errors, so they are checked against ARM's common shape.
 */

const validators = new Map<string, ReturnType<typeof responseValidator>>();
function expectSpecValid(spec: string, op: string, body: unknown): void {
  let v = validators.get(op);
  if (!v) validators.set(op, (v = responseValidator(spec, op)));
  expect(v(body).errors, `${op}: ${JSON.stringify(body).slice(0, 300)}`).toEqual([]);
}

const armErrorShape = new Ajv({ allErrors: true }).compile({
  type: "object",
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string", minLength: 1 }, message: { type: "string", minLength: 1 } },
    },
  },
});
function expectArmError(res: RawAnswer, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(armErrorShape(res.body), JSON.stringify(armErrorShape.errors)).toBe(true);
  expect((res.body as { error: { code: string } }).error.code).toBe(code);
}

/** Every item of a list, following nextLink (each page validated). */
async function allPages<T>(h: KeyCustodyHarness, first: RawAnswer, spec: string, op: string): Promise<T[]> {
  const out: T[] = [];
  let res = first;
  for (let i = 0; i < 20; i++) {
    expect(res.status).toBe(200);
    expectSpecValid(spec, op, res.body);
    const body = res.body as { value: T[]; nextLink?: string };
    out.push(...body.value);
    if (!body.nextLink) return out;
    res = await h.get(body.nextLink.slice(h.url.length));
  }
  throw new Error("too many pages");
}

/** The versions Azure publishes (specs/api-versions/Microsoft.Sql.json: the protector's and the keys' are the same). */
const SQL_KEY_CUSTODY_API_VERSIONS = publishedOperation("Microsoft.Sql", "EncryptionProtectors_Get").apiVersions;

function expectShape(
  type: "encryptionProtector" | "keys",
  version: string,
  props: EncryptionProtector["properties"] | ServerKey["properties"],
): void {
  const has = (path: string) => versionHas("Microsoft.Sql", `Microsoft.Sql/servers/${type}`, version, path);
  expect("autoRotationEnabled" in props!, `${version} autoRotationEnabled`).toBe(has("properties.autoRotationEnabled"));
  const akv = props!.serverKeyType === "AzureKeyVault";
  expect("keyVersion" in props!, `${version} keyVersion`).toBe(has("properties.keyVersion") && akv);
  if (akv && has("properties.keyVersion")) expect(props!.uri!.endsWith(`/${props!.keyVersion}`)).toBe(true);
}

const VARIANTS = [
  {
    name: "the key-custody test estate",
    seed: () => estate(KEY_CUSTODY_ESTATE),
    servers: ["sql-kc-service-managed", "sql-kc-healthy", "sql-kc-expired", "sql-kc-vault-unreadable"].map((s) => serverPath(s)),
  },
  {
    name: "the default estate",
    seed: () => estate(DEV_ESTATE),
    servers: ["sql-prod-1", "sql-prod-2"].map((s) => serverPath(s, "rg-data")),
  },
];

describe.each(VARIANTS)("key custody answers conform at every accepted api-version: $name", ({ seed, servers }) => {
  let h: KeyCustodyHarness;
  beforeAll(async () => {
    h = await startKeyCustody(seed());
  });
  afterAll(async () => {
    await h.close();
  });

  it("EncryptionProtectors_ListByServer and EncryptionProtectors_Get", async () => {
    for (const version of SQL_KEY_CUSTODY_API_VERSIONS) {
      for (const path of servers) {
        const list = await allPages<EncryptionProtector>(
          h,
          await h.get(`${path}/encryptionProtector`, version),
          SQL_ENCRYPTION_PROTECTORS_SPEC,
          SQL_KEY_CUSTODY_OPERATIONS.listEncryptionProtectors,
        );
        expect(list).toHaveLength(1);
        const one = await h.get(`${path}/encryptionProtector/current`, version);
        expect(one.status).toBe(200);
        expectSpecValid(SQL_ENCRYPTION_PROTECTORS_SPEC, SQL_KEY_CUSTODY_OPERATIONS.getEncryptionProtector, one.body);
        expect(one.body).toEqual(list[0]);
        expectShape("encryptionProtector", version, (one.body as EncryptionProtector).properties);
      }
    }
  });

  it("ServerKeys_ListByServer and ServerKeys_Get", async () => {
    for (const version of SQL_KEY_CUSTODY_API_VERSIONS) {
      for (const path of servers) {
        const keys = await allPages<ServerKey>(
          h,
          await h.get(`${path}/keys`, version),
          SQL_SERVER_KEYS_SPEC,
          SQL_KEY_CUSTODY_OPERATIONS.listServerKeys,
        );
        expect(keys[0].name).toBe("ServiceManaged");
        for (const k of keys) {
          const one = await h.get(`${path}/keys/${k.name}`, version);
          expect(one.status).toBe(200);
          expectSpecValid(SQL_SERVER_KEYS_SPEC, SQL_KEY_CUSTODY_OPERATIONS.getServerKey, one.body);
          expect(one.body).toEqual(k);
          expectShape("keys", version, k.properties);
        }
      }
    }
  });

  it("a protector that is a Key Vault key is one of the server's keys, by name, uri and thumbprint", async () => {
    for (const path of servers) {
      const p = (await h.get(`${path}/encryptionProtector/current`, "2023-08-01")).body as EncryptionProtector;
      const keys = ((await h.get(`${path}/keys`, "2023-08-01")).body as { value: ServerKey[] }).value;
      const key = keys.find((k) => k.name === p.properties!.serverKeyName)!;
      expect(key, path).toBeDefined();
      expect(key.properties!.uri).toBe(p.properties!.uri);
      expect(key.properties!.thumbprint).toBe(p.properties!.thumbprint);
    }
  });

  it("refuses other api-versions as Resource Manager does; errors have ARM's shape", async () => {
    const path = servers[0];
    for (const version of ["2014-04-01", "2017-03-01-preview", "2025-08-01", "2026-01-01-preview", "latest"]) {
      expectArmError(await h.get(`${path}/encryptionProtector/current`, version), 400, "InvalidApiVersionParameter");
      expectArmError(await h.get(`${path}/keys`, version), 400, "InvalidApiVersionParameter");
    }
    expectArmError(await h.get(`${path}/encryptionProtector`), 400, "MissingApiVersionParameter");
    const message = ((await h.get(`${path}/keys`, "2014-04-01")).body as { error: { message: string } }).error.message;
    expect(message).toContain("'2015-05-01-preview'");
    expect(message).toContain("'2025-08-01-preview'");
    expectArmError(await h.get(`${path}/encryptionProtector/previous`, "2021-11-01"), 404, "ResourceNotFound");
    expectArmError(await h.get(`${path}x/keys`, "2021-11-01"), 404, "ResourceNotFound");
    expectArmError(await h.get(`${path}/keys/nope_nope_1`, "2021-11-01"), 404, "ResourceNotFound");
    expectArmError(
      await h.get(path.replace(/resourceGroups\/[^/]+/, "resourceGroups/rg-none") + "/keys", "2021-11-01"),
      404,
      "ResourceGroupNotFound",
    );
  });
});
