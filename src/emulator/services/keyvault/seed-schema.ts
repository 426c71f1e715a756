import { Type, type Static } from "../../kit/seed-types";

/**
 * The emulator seed's `keyvault:` section, each part declared once: its JSON Schema and its
 * TypeScript type come from the same declaration (kit/seed-types.ts). Every key is documented in its
 * `description`: optional or required, default, bounds. Times are RFC 3339 (the seed loader turns
 * `now`, `now-3d`, `now+730d` in keys ending in `Date` into one, relative to when the seed is loaded,
 * so an estate's keys stay as healthy, or as expired, as it says for years).
 */

/** `ManagedHsmProperties.provisioningState` of managedHsm.json (2023-07-01). */
export const MANAGED_HSM_PROVISIONING_STATES = [
  "Succeeded",
  "Provisioning",
  "Failed",
  "Updating",
  "Deleting",
  "Activated",
  "SecurityDomainRestore",
  "Restoring",
] as const;

export const DEFAULT_SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000000";
/** The emulator IMDS's default tenant, so a vault's tenant is the identity's unless the seed says otherwise. */
export const DEFAULT_TENANT_ID = "72f988bf-86f1-41af-91ab-2d7cd011db47";
export const DEFAULT_LOCATION = "eastus";
export const DEFAULT_RETENTION_DAYS = 90;

const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
/** RFC 3339 date-time with a zone. */
const DATE_TIME = "^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$";
/** ISO 8601 durations as rotation policies write them (`P90D`, `P1Y`, `P2Y6M`, `PT12H`). */
const DURATION = "^P(?!$)(\\d+Y)?(\\d+M)?(\\d+W)?(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+S)?)?$";

const uuid = (description: string) => Type.String({ pattern: UUID, description });
const dateTime = (description: string) =>
  Type.String({
    pattern: DATE_TIME,
    description: `${description} RFC 3339 with a zone (2031-05-01T00:00:00Z), or now, now-30d, now+730d (units s, m, h, d).`,
  });
const duration = (description: string) => Type.String({ pattern: DURATION, description });
const tags = () => Type.Optional(Type.Record(Type.String(), { description: "Optional: the resource's tags. Default: none." }));
const enabledFlag = (description: string) => Type.Optional(Type.Boolean({ description }));

const readDenied = (what: string) =>
  Type.Optional(
    Type.OneOf([Type.Boolean(), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })], {
      description: `Optional: ${what} Resource Manager refuses to read, as it does when the identity holds no role that grants it: 403 AuthorizationFailed. true: every caller; a list: the principals (access tokens' oid) refused. Default: readable.`,
    }),
  );
/** Who may not read a vault or key: everyone (`true`), or the principals (token `oid`s) listed. */
export type ReadDeniedSeed = boolean | string[];

/** A rotation policy's lifetime action, flat: rotate or notify, after creation or before expiry. */
const lifetimeActionSeed = Type.Object({
  action: Type.Enum(["rotate", "notify"], { description: "Required: rotate (a new version) or notify (an Event Grid event)." }),
  timeAfterCreate: Type.Optional(duration("Optional: an ISO 8601 duration after the version's creation (rotate only), e.g. P18M.")),
  timeBeforeExpiry: Type.Optional(duration("Optional: an ISO 8601 duration before the version expires, e.g. P30D.")),
});
export type KeyLifetimeActionSeed = Static<typeof lifetimeActionSeed>;

const rotationPolicySeed = Type.Object(
  {
    expiryTime: Type.Optional(duration("Optional: the expiry of each new version, e.g. P2Y.")),
    lifetimeActions: Type.Optional(Type.Array(lifetimeActionSeed, { description: "Optional. Default: none." })),
  },
  {
    description:
      "Optional: the key's rotation policy (properties.rotationPolicy, in the api-versions that have it). Default: none (omitted, as Azure omits an empty one).",
  },
);
export type KeyRotationPolicySeed = Static<typeof rotationPolicySeed>;

const keySeed = Type.Object({
  name: Type.String({
    pattern: "^[A-Za-z0-9-]{1,127}$",
    description: "Required: 1-127 letters, digits and hyphens; unique per vault, case-insensitively.",
  }),
  kty: Type.Optional(
    Type.Enum(["RSA", "RSA-HSM", "EC", "EC-HSM"], {
      description: "Optional: the key type (JsonWebKeyType). Default RSA. -HSM keys need a premium vault.",
    }),
  ),
  keySize: Type.Optional(
    Type.Integer({ enum: [2048, 3072, 4096], description: "Optional, RSA keys only: 2048, 3072 or 4096 bits. Default 2048." }),
  ),
  curveName: Type.Optional(
    Type.Enum(["P-256", "P-384", "P-521", "P-256K"], { description: "Optional, EC keys only: the curve. Default P-256." }),
  ),
  keyOps: Type.Optional(
    Type.Array(Type.Enum(["encrypt", "decrypt", "sign", "verify", "wrapKey", "unwrapKey", "import", "release"]), {
      description:
        "Optional: the permitted operations. Default: encrypt, decrypt, sign, verify, wrapKey, unwrapKey for RSA; sign, verify for EC.",
    }),
  ),
  enabled: enabledFlag("Optional: attributes.enabled. Default true."),
  activationDate: Type.Optional(dateTime("Optional: attributes.nbf, when the key becomes usable. Default: none (usable at once).")),
  expirationDate: Type.Optional(dateTime("Optional: attributes.exp, when the key expires. Default: none (never).")),
  creationDate: Type.Optional(dateTime("Optional: attributes.created (and updated). Default: when the emulator's state was created.")),
  version: Type.Optional(
    Type.String({
      pattern: "^[0-9a-fA-F]{32}$",
      description:
        "Optional: the current version, 32 hex digits (what a protector's key URI ends with). Default: derived from the vault and key names.",
    }),
  ),
  exportable: enabledFlag("Optional: attributes.exportable (api-version 2021-06-01-preview on). Default false."),
  rotationPolicy: Type.Optional(rotationPolicySeed),
  tags: tags(),
  readDenied: readDenied("a key whose reads"),
});
export type KeyVaultKeySeed = Static<typeof keySeed>;

/** keyvault.json `KeyPermissions`, `SecretPermissions`, `CertificatePermissions` (2023-07-01). */
const KEY_PERMISSIONS = [
  "all",
  "encrypt",
  "decrypt",
  "wrapKey",
  "unwrapKey",
  "sign",
  "verify",
  "get",
  "list",
  "create",
  "update",
  "import",
  "delete",
  "backup",
  "restore",
  "recover",
  "purge",
  "release",
  "rotate",
  "getrotationpolicy",
  "setrotationpolicy",
] as const;
const SECRET_PERMISSIONS = ["all", "get", "list", "set", "delete", "backup", "restore", "recover", "purge"] as const;
const CERTIFICATE_PERMISSIONS = [
  "all",
  "get",
  "list",
  "delete",
  "create",
  "import",
  "update",
  "managecontacts",
  "getissuers",
  "listissuers",
  "setissuers",
  "deleteissuers",
  "manageissuers",
  "recover",
  "purge",
  "backup",
  "restore",
] as const;
const permissionList = <const V extends readonly string[]>(values: V, what: string) =>
  Type.Optional(
    Type.Array(Type.Enum(values), { description: `Optional: the ${what} permissions, as keyvault.json spells them. Default: none.` }),
  );

/** An access policy: whom it names and what it grants (key, secret, certificate permissions). */
const accessPolicySeed = Type.Object(
  {
    objectId: uuid("Required: the principal's object id (a server's identity principalId)."),
    tenantId: Type.Optional(uuid("Optional. Default: the vault's tenantId.")),
    applicationId: Type.Optional(uuid("Optional: a compound identity's application. Default: none.")),
    permissions: Type.Object(
      {
        keys: permissionList(KEY_PERMISSIONS, "key"),
        secrets: permissionList(SECRET_PERMISSIONS, "secret"),
        certificates: permissionList(CERTIFICATE_PERMISSIONS, "certificate"),
      },
      { description: "Required: the permissions (a TDE protector's server needs keys get, wrapKey, unwrapKey)." },
    ),
  },
  {
    description:
      "An access policy (properties.accessPolicies[]): what a principal may do with the vault's keys, secrets and certificates. An RBAC vault (enableRbacAuthorization) ignores them, as Azure does.",
  },
);
export type KeyVaultAccessPolicySeed = Static<typeof accessPolicySeed>;

/** The vault's firewall (properties.networkAcls). */
const networkAclsSeed = Type.Object(
  {
    defaultAction: Type.Enum(["Allow", "Deny"], {
      description:
        "Required: Deny turns the firewall on (only the ipRules and, with bypass AzureServices, trusted Microsoft services get through).",
    }),
    bypass: Type.Optional(Type.Enum(["AzureServices", "None"], { description: "Optional. Default AzureServices, as Azure sets it." })),
    ipRules: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: "Optional: allowed IPv4 addresses or CIDR ranges. Default: none." }),
    ),
  },
  {
    description: "Optional: the vault's firewall (properties.networkAcls, api-version 2018-02-14-preview on). Default: none (no firewall).",
  },
);
export type KeyVaultNetworkAclsSeed = Static<typeof networkAclsSeed>;

const resourceGroup = Type.String({
  pattern: "^[-\\w.()]{0,89}[-\\w()]$",
  description: "Required: 1-90 letters, digits, underscores, hyphens, periods and parentheses, not ending with a period.",
});

const vaultSeed = Type.Object({
  name: Type.String({
    pattern: "^(?=.{3,24}$)[A-Za-z](?!.*--)[A-Za-z0-9-]*[A-Za-z0-9]$",
    description:
      "Required: 3-24 letters, digits and hyphens, starting with a letter, ending with a letter or digit, no two hyphens in a row; unique across the estate (vault names are global DNS names), case-insensitively.",
  }),
  resourceGroup,
  subscriptionId: Type.Optional(uuid("Optional. Default: keyvault.subscriptionId.")),
  location: Type.Optional(Type.String({ minLength: 1, description: `Optional: the vault's region. Default ${DEFAULT_LOCATION}.` })),
  tenantId: Type.Optional(uuid("Optional: properties.tenantId. Default: keyvault.tenantId.")),
  sku: Type.Optional(Type.Enum(["standard", "premium"], { description: "Optional: properties.sku.name. Default standard." })),
  enableSoftDelete: enabledFlag(
    "Optional: soft delete. Default true (Azure's default since 2020). false: the property is absent, as in an old vault.",
  ),
  softDeleteRetentionInDays: Type.Optional(
    Type.Integer({
      minimum: 7,
      maximum: 90,
      description: `Optional, with soft delete: 7-90 days (api-version 2019-09-01 on). Default ${DEFAULT_RETENTION_DAYS}.`,
    }),
  ),
  enablePurgeProtection: enabledFlag(
    "Optional: purge protection (api-version 2016-10-01 on; needs soft delete). Default false: absent, as Azure leaves it.",
  ),
  enableRbacAuthorization: enabledFlag("Optional (api-version 2019-09-01 on). Default false."),
  publicNetworkAccess: Type.Optional(
    Type.Enum(["Enabled", "Disabled"], { description: "Optional (api-version 2021-06-01-preview on). Default Enabled." }),
  ),
  accessPolicies: Type.Optional(
    Type.Array(accessPolicySeed, { description: "Optional: properties.accessPolicies. Default: none (empty, as a new RBAC vault has)." }),
  ),
  networkAcls: Type.Optional(networkAclsSeed),
  tags: tags(),
  readDenied: readDenied("a vault (and so its keys) whose reads"),
  keys: Type.Optional(Type.Array(keySeed, { description: "Optional: the vault's keys (Keys_List). Default: none." })),
});
export type KeyVaultVaultSeed = Static<typeof vaultSeed>;

/** A Managed HSM pool, from managedHsm.json (2023-07-01): its name's pattern is the spec's `ManagedHSMName`. */
const managedHsmSeed = Type.Object({
  name: Type.String({
    pattern: "^(?=.{3,24}$)[A-Za-z]([A-Za-z0-9]|-[A-Za-z0-9])+$",
    description:
      "Required: 3-24 letters, digits and hyphens, starting with a letter, no hyphen at the end or twice in a row; unique across the estate's HSMs (HSM names are global DNS names: https://<name>.managedhsm.azure.net), case-insensitively.",
  }),
  resourceGroup,
  subscriptionId: Type.Optional(uuid("Optional. Default: keyvault.subscriptionId.")),
  location: Type.Optional(Type.String({ minLength: 1, description: `Optional: the HSM's region. Default ${DEFAULT_LOCATION}.` })),
  tenantId: Type.Optional(uuid("Optional: properties.tenantId. Default: keyvault.tenantId.")),
  sku: Type.Optional(
    Type.Enum(["Standard_B1", "Custom_B32", "Custom_B6"], { description: "Optional: sku.name (family B). Default Standard_B1." }),
  ),
  softDeleteRetentionInDays: Type.Optional(
    Type.Integer({
      minimum: 7,
      maximum: 90,
      description: `Optional: 7-90 days. Default ${DEFAULT_RETENTION_DAYS}. Soft delete itself is always on (the spec: immutable), so it has no key here.`,
    }),
  ),
  enablePurgeProtection: enabledFlag(
    "Optional: purge protection, reported as true or false (as the published example does). Default true (the spec's default).",
  ),
  provisioningState: Type.Optional(
    Type.Enum(MANAGED_HSM_PROVISIONING_STATES, { description: "Optional: properties.provisioningState. Default Succeeded." }),
  ),
  publicNetworkAccess: Type.Optional(Type.Enum(["Enabled", "Disabled"], { description: "Optional. Default Enabled." })),
  tags: tags(),
  readDenied: readDenied("an HSM (and so its keys) whose reads"),
  keys: Type.Optional(
    Type.Array(keySeed, {
      description:
        "Optional: the HSM's keys (ManagedHsmKeys_List), as a vault's keys are declared (every key type is HSM-backed here, so RSA-HSM needs no premium sku). Default: none.",
    }),
  ),
});
/** A Managed HSM pool (Microsoft.KeyVault/managedHSMs) and its keys. */
export type KeyVaultManagedHsmSeed = Static<typeof managedHsmSeed>;

/** The `keyvault:` section's schema. */
export const keyVaultSeedSchema = Type.Object(
  {
    subscriptionId: Type.Optional(uuid(`Optional: the subscription of vaults that name none. Default ${DEFAULT_SUBSCRIPTION_ID}.`)),
    tenantId: Type.Optional(
      uuid(`Optional: the tenant of vaults that name none. Default ${DEFAULT_TENANT_ID} (the emulator IMDS's default tenant).`),
    ),
    vaults: Type.Optional(Type.Array(vaultSeed, { description: "Optional. Default: none." })),
    managedHsms: Type.Optional(
      Type.Array(managedHsmSeed, { description: "Optional: Managed HSM pools (Microsoft.KeyVault/managedHSMs). Default: none." }),
    ),
  },
  {
    description:
      "The Key Vault estate the emulator serves (Microsoft.KeyVault vaults, Managed HSMs and their keys, read-only) at every api-version Azure publishes for each operation (specs/api-versions/Microsoft.KeyVault.json).",
  },
);
/** The `keyvault:` section of a seed. */
export type KeyVaultSeed = Static<typeof keyVaultSeedSchema>;
