import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pulumi-cli";

// The provider schema excerpts under specs/ (issue 43): the shapes stackwarden's policy pack reads
// from azure-native and azure resources. Each must parse as a Pulumi schema document, hold every
// resource its resources.txt lists, resolve every "#/types/…" ref inside itself (so a reader never
// meets a dangling type), and keep the properties the pack's fact kinds read at the paths named below.

interface SchemaProperty {
  type?: string;
  $ref?: string;
  items?: SchemaProperty;
  additionalProperties?: SchemaProperty;
  oneOf?: SchemaProperty[];
  properties?: Record<string, SchemaProperty>;
}
interface SchemaResource {
  inputProperties?: Record<string, SchemaProperty>;
  properties?: Record<string, SchemaProperty>;
  requiredInputs?: string[];
}
interface SchemaDocument {
  name: string;
  version: string;
  description?: string;
  resources: Record<string, SchemaResource>;
  types: Record<string, SchemaProperty>;
}

const load = (provider: string): SchemaDocument =>
  JSON.parse(readFileSync(join(REPO_ROOT, "specs", provider, "schema-excerpt.json"), "utf8")) as SchemaDocument;

const listedTokens = (provider: string): string[] =>
  readFileSync(join(REPO_ROOT, "specs", provider, "resources.txt"), "utf8")
    .split("\n")
    .map((l) => l.replace(/#.*/, "").trim())
    .filter(Boolean);

/** Every `$ref` string anywhere inside value. */
function refsIn(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, into);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") into.push(v);
      else refsIn(v, into);
    }
  }
  return into;
}

/**
 * The schema of an input path such as "properties.attributes.expires", following refs into the
 * excerpt's types (and an array's items, for a "[]" segment).
 */
function inputAt(doc: SchemaDocument, token: string, path: string): SchemaProperty | undefined {
  const [first, ...rest] = path.split(".");
  let node: SchemaProperty | undefined = doc.resources[token]?.inputProperties?.[first];
  for (const segment of rest) {
    if (!node) return undefined;
    if (node.items) node = node.items;
    const resolved: SchemaProperty | undefined = node.$ref?.startsWith("#/types/") ? doc.types[decodeURIComponent(node.$ref.slice(8))] : node;
    node = resolved?.properties?.[segment];
  }
  return node;
}

// What the pack's fact kinds will read from planned state (specs/*/SOURCES.md has the same table).
const READ_BY_THE_PACK: Record<string, Record<string, string[]>> = {
  "pulumi-azure-native": {
    "azure-native:sql:TransparentDataEncryption": ["state", "serverName", "databaseName", "resourceGroupName"],
    "azure-native:sql:EncryptionProtector": ["serverKeyName", "serverKeyType", "autoRotationEnabled", "serverName"],
    "azure-native:sql:ServerKey": ["serverKeyType", "uri", "keyName", "serverName"],
    "azure-native:sql:Server": ["identity.type", "identity.userAssignedIdentities", "primaryUserAssignedIdentityId", "keyId"],
    "azure-native:sql:Database": ["serverName", "databaseName", "identity.type"],
    "azure-native:keyvault:Vault": [
      "properties.enableSoftDelete",
      "properties.enablePurgeProtection",
      "properties.enableRbacAuthorization",
      "properties.accessPolicies.permissions.keys",
      "properties.accessPolicies.objectId",
      "properties.networkAcls.defaultAction",
    ],
    "azure-native:keyvault:Key": [
      "properties.kty",
      "properties.keySize",
      "properties.attributes.enabled",
      "properties.attributes.notBefore",
      "properties.attributes.expires",
      "properties.rotationPolicy.lifetimeActions",
    ],
    "azure-native:keyvault:ManagedHsm": ["properties.enablePurgeProtection", "properties.enableSoftDelete"],
    "azure-native:authorization:RoleAssignment": ["principalId", "roleDefinitionId", "scope"],
  },
  "pulumi-azure": {
    "azure:mssql/database:Database": ["transparentDataEncryptionEnabled", "serverId", "transparentDataEncryptionKeyVaultKeyId"],
    "azure:mssql/serverTransparentDataEncryption:ServerTransparentDataEncryption": ["serverId", "keyVaultKeyId", "managedHsmKeyId", "autoRotationEnabled"],
    "azure:mssql/server:Server": ["identity.type", "identity.identityIds", "primaryUserAssignedIdentityId", "transparentDataEncryptionKeyVaultKeyId"],
    "azure:keyvault/keyVault:KeyVault": [
      "softDeleteRetentionDays",
      "purgeProtectionEnabled",
      "enableRbacAuthorization",
      "rbacAuthorizationEnabled",
      "accessPolicies.keyPermissions",
      "accessPolicies.objectId",
      "networkAcls.defaultAction",
    ],
    "azure:keyvault/key:Key": ["keyType", "keySize", "notBeforeDate", "expirationDate", "rotationPolicy.expireAfter", "keyVaultId"],
    "azure:keyvault/managedHardwareSecurityModule:ManagedHardwareSecurityModule": ["purgeProtectionEnabled", "softDeleteRetentionDays"],
    "azure:authorization/assignment:Assignment": ["principalId", "roleDefinitionId", "roleDefinitionName", "scope"],
  },
};

describe.each(["pulumi-azure-native", "pulumi-azure"])("specs/%s/schema-excerpt.json", (provider) => {
  const doc = load(provider);
  const name = provider.replace(/^pulumi-/, "");

  it("is a Pulumi schema document of its provider, with a version and a description naming its source", () => {
    expect(doc.name).toBe(name);
    expect(doc.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(doc.description).toContain("SOURCES.md");
  });

  it("holds every resource resources.txt lists, with inputs, outputs and required inputs", () => {
    const tokens = listedTokens(provider);
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) {
      expect(doc.resources[token], token).toBeDefined();
      expect(Object.keys(doc.resources[token].inputProperties ?? {}).length, `${token} inputProperties`).toBeGreaterThan(0);
      expect(Object.keys(doc.resources[token].properties ?? {}).length, `${token} properties`).toBeGreaterThan(0);
      expect(Array.isArray(doc.resources[token].requiredInputs), `${token} requiredInputs`).toBe(true);
    }
    expect(Object.keys(doc.resources).sort()).toEqual([...tokens].sort());
  });

  it("resolves every #/types/ ref inside the excerpt, and keeps no type nothing refers to", () => {
    const refs = refsIn(doc);
    const typeRefs = refs.filter((r) => r.startsWith("#/types/")).map((r) => decodeURIComponent(r.slice("#/types/".length)));
    expect(typeRefs.length).toBeGreaterThan(0);
    for (const t of typeRefs) expect(doc.types[t], `dangling $ref #/types/${t}`).toBeDefined();
    // Any other ref is to Pulumi's own schema (pulumi.json#/Any and the like), never to another document.
    for (const r of refs.filter((x) => !x.startsWith("#/types/"))) expect(r).toMatch(/^pulumi\.json#\//);
    expect(Object.keys(doc.types).sort()).toEqual([...new Set(typeRefs)].sort());
  });

  it("keeps the inputs the policy pack reads, at the paths it reads them", () => {
    for (const [token, paths] of Object.entries(READ_BY_THE_PACK[provider])) {
      expect(listedTokens(provider), token).toContain(token);
      for (const path of paths) expect(inputAt(doc, token, path), `${token} input ${path}`).toBeDefined();
    }
  });
});

it("azure-native's TDE state is the schema's enum Enabled | Disabled (what sql-tde-enabled judges)", () => {
  const doc = load("pulumi-azure-native");
  const state = doc.resources["azure-native:sql:TransparentDataEncryption"].inputProperties!.state;
  expect(state.$ref).toBe("#/types/azure-native:sql:TransparentDataEncryptionState");
  const enumType = doc.types["azure-native:sql:TransparentDataEncryptionState"] as { enum?: { value: string }[] };
  expect(enumType.enum?.map((e) => e.value)).toEqual(["Enabled", "Disabled"]);
  expect(doc.resources["azure-native:sql:TransparentDataEncryption"].requiredInputs).toContain("state");
});

it("azure's database TDE flag is a boolean and a server's administrator password is a secret", () => {
  const doc = load("pulumi-azure");
  expect(doc.resources["azure:mssql/database:Database"].inputProperties!.transparentDataEncryptionEnabled.type).toBe("boolean");
  const password = doc.resources["azure:mssql/server:Server"].inputProperties!.administratorLoginPassword as SchemaProperty & { secret?: boolean };
  expect(password.secret).toBe(true);
});
