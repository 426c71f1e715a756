import { parseResourceId } from "../../../platform/arm/resource-id";
import { UNKNOWN, type Maybe } from "../../../platform/unknown-value";
import { keyVaultId } from "../../../services/keyvault/vault-ids";
import { managedHsmId } from "../../../services/keyvault/managed-hsm-ids";
import { keyVaultKeyUri, parseKeyVaultKeyUri } from "../../../services/keyvault/key-uri";
import type { Key } from "../../../services/keyvault/types";
import { keyIdentity } from "../key-custody-reads";
import type { ResourceInput } from "../fact-kind";
import { plannedIdentity } from "./planned-identity";
import {
  emptyEstate,
  NOT_KNOWN_YET,
  type PlannedKey,
  type PlannedProtector,
  type PlannedServerRef,
  type PlannedVault,
  type ProgramEstate,
} from "./program-estate";
import { hasUnknown, type ProgramResources } from "./program-resources";

/**
 * The `azure` (classic) provider's resource types the pack reads, as its schema names them
 * (specs/pulumi-azure/schema-excerpt.json, v6.39.0).
 */
export const AZURE_CLASSIC = {
  server: "azure:mssql/server:Server",
  database: "azure:mssql/database:Database",
  tde: "azure:mssql/serverTransparentDataEncryption:ServerTransparentDataEncryption",
  vault: "azure:keyvault/keyVault:KeyVault",
  key: "azure:keyvault/key:Key",
  managedHsm: "azure:keyvault/managedHardwareSecurityModule:ManagedHardwareSecurityModule",
  roleAssignment: "azure:authorization/assignment:Assignment",
} as const;

type ProtectorKey = Omit<PlannedProtector, keyof PlannedServerRef | "origin">;

/** What a program of the `azure` provider declares that the TDE and key-custody rules judge. */
export function azureClassicEstate(program: ProgramResources, subscriptionId: string): ProgramEstate {
  const estate = emptyEstate();
  if (!program.has(...Object.values(AZURE_CLASSIC))) return estate;
  const { known, serverOf, keyOf, protectorOf } = classicReaders(program, subscriptionId);
  for (const r of program.ofType(AZURE_CLASSIC.database)) {
    // The provider's default is true: a database that does not say is encrypted.
    const enabled = program.value(r, "transparentDataEncryptionEnabled");
    estate.databases.push({
      ...serverOf(r),
      database: known(program.str(r, "name")),
      state: enabled === UNKNOWN ? UNKNOWN : enabled === false ? "Disabled" : "Enabled",
      origin: r.urn,
    });
  }
  for (const r of program.ofType(AZURE_CLASSIC.server)) {
    const ref = { subscriptionId, resourceGroup: known(program.str(r, "resourceGroupName")), server: known(program.str(r, "name")) };
    estate.servers.push({
      ...ref,
      identity: plannedIdentity(identityOf(program.value(r, "identity")), program.value(r, "primaryUserAssignedIdentityId")),
      origin: r.urn,
    });
  }
  for (const r of program.ofType(AZURE_CLASSIC.tde)) {
    const hsm = program.str(r, "managedHsmKeyId");
    const rotation = program.value(r, "autoRotationEnabled");
    estate.protectors.push({
      ...serverOf(r),
      ...protectorOf(r, hsm !== undefined && program.str(r, "keyVaultKeyId") === undefined ? "managedHsmKeyId" : "keyVaultKeyId"),
      ...(typeof rotation === "boolean" ? { autoRotationEnabled: rotation } : {}),
      origin: r.urn,
    });
  }
  // A server created with a key and no ServerTransparentDataEncryption: that key is its protector.
  for (const server of [...estate.servers]) {
    const r = program.ofType(AZURE_CLASSIC.server).find((x) => x.urn === server.origin)!;
    if (program.str(r, "transparentDataEncryptionKeyVaultKeyId") === undefined) continue;
    if (estate.protectors.some((p) => p.server === server.server && p.resourceGroup === server.resourceGroup)) continue;
    estate.protectors.push({ ...server, ...protectorOf(r, "transparentDataEncryptionKeyVaultKeyId"), origin: r.urn });
  }
  for (const r of program.ofType(AZURE_CLASSIC.vault)) estate.vaults.push(classicVaultOf(program, r, subscriptionId));
  for (const r of program.ofType(AZURE_CLASSIC.managedHsm)) {
    const name = known(program.str(r, "name")).toLowerCase();
    const purge = program.value(r, "purgeProtectionEnabled");
    estate.vaults.push({
      kind: "managedHsm",
      name,
      resource:
        purge === UNKNOWN
          ? UNKNOWN
          : {
              id: managedHsmId({ subscriptionId, resourceGroup: known(program.str(r, "resourceGroupName")), hsm: name }),
              name,
              properties: { enableSoftDelete: true, enablePurgeProtection: purge === true } as never,
            },
      origin: r.urn,
    });
  }
  for (const r of program.ofType(AZURE_CLASSIC.key)) {
    const ref = keyOf(r);
    if (ref) estate.keys.push({ ...ref, resource: keyResourceOf(program, r), origin: r.urn });
  }
  for (const r of program.ofType(AZURE_CLASSIC.roleAssignment)) {
    const scope = program.str(r, "scope");
    const vault = scope === UNKNOWN ? program.source(r, "scope", AZURE_CLASSIC.vault) : undefined;
    const role = program.str(r, "roleDefinitionId");
    estate.grants.push({
      principalId: program.str(r, "principalId") ?? "",
      scope: scope ?? "",
      ...(vault ? { vault: known(program.str(vault, "name")).toLowerCase() } : {}),
      // A role given by name only (roleDefinitionName) is not resolved: its grant stays unknown.
      roleDefinitionId: role ?? UNKNOWN,
      ...(program.value(r, "condition") ? { conditional: true } : {}),
      origin: r.urn,
    });
  }
  return estate;
}

/** How the azure provider's resources name servers and keys: by ARM id or URI, followed to their resource when unknown. */
function classicReaders(program: ProgramResources, subscriptionId: string) {
  const known = (v: Maybe<string | undefined>) => (typeof v === "string" ? v : NOT_KNOWN_YET);
  /** The server a `serverId` names: parsed when known, else the Server resource it flows from. */
  const serverOf = (r: ResourceInput): PlannedServerRef => {
    const id = program.str(r, "serverId");
    if (typeof id === "string") {
      const p = parseResourceId(id);
      const server = p?.segments.find((s) => s.type.toLowerCase() === "servers")?.name;
      return {
        subscriptionId: p?.subscriptionId ?? subscriptionId,
        resourceGroup: p?.resourceGroup ?? NOT_KNOWN_YET,
        server: server ?? NOT_KNOWN_YET,
      };
    }
    const from = program.source(r, "serverId", AZURE_CLASSIC.server);
    return {
      subscriptionId,
      resourceGroup: known(from && program.str(from, "resourceGroupName")),
      server: known(from && program.str(from, "name")),
    };
  };
  /** A key's vault: the vault a `keyVaultId` names, else the KeyVault resource it flows from. */
  const keyOf = (k: ResourceInput): Pick<PlannedKey, "container" | "vaultName" | "keyName"> | undefined => {
    const id = program.str(k, "keyVaultId");
    const from = id === UNKNOWN ? program.source(k, "keyVaultId", AZURE_CLASSIC.vault) : undefined;
    const vault =
      typeof id === "string"
        ? parseResourceId(id)?.segments.find((s) => s.type.toLowerCase() === "vaults")?.name
        : from && program.str(from, "name");
    const name = program.str(k, "name");
    if (typeof vault !== "string" || typeof name !== "string") return undefined;
    return { container: "vault", vaultName: vault.toLowerCase(), keyName: name };
  };
  /** The protector a key id gives (a Key's `id` is its versioned URI): service-managed when absent, followed to the Key when unknown. */
  const protectorOf = (r: ResourceInput, property: string): ProtectorKey => {
    const uri = program.str(r, property);
    if (uri === undefined || uri === "") return { serverKeyType: "ServiceManaged" };
    if (uri === UNKNOWN) {
      const k = program.source(r, property, AZURE_CLASSIC.key);
      const ref = k && keyOf(k);
      if (!ref) return { serverKeyType: UNKNOWN };
      const keyUri = keyVaultKeyUri(ref.vaultName, ref.keyName);
      return {
        serverKeyType: "AzureKeyVault",
        keyUri,
        key: {
          uri: keyUri,
          vaultName: ref.vaultName,
          keyName: ref.keyName,
          managedHsm: false,
          identity: keyIdentity(ref.vaultName, ref.keyName),
        },
      };
    }
    const parsed = parseKeyVaultKeyUri(uri);
    return {
      serverKeyType: "AzureKeyVault",
      keyUri: uri,
      ...(parsed
        ? {
            key: {
              uri,
              vaultName: parsed.vaultName,
              keyName: parsed.keyName,
              ...(parsed.version ? { version: parsed.version } : {}),
              managedHsm: parsed.managedHsm,
              identity: keyIdentity(parsed.vaultName, parsed.keyName, parsed.version, parsed.managedHsm),
            },
          }
        : {}),
    };
  };

  return { known, serverOf, keyOf, protectorOf };
}

/** A KeyVault as Resource Manager will answer it (soft delete always on: the provider has no switch for it). */
function classicVaultOf(program: ProgramResources, r: ResourceInput, subscriptionId: string): PlannedVault {
  const known = (v: Maybe<string | undefined>) => (typeof v === "string" ? v : NOT_KNOWN_YET);
  const name = known(program.str(r, "name")).toLowerCase();
  const v = (k: string) => program.value(r, k);
  const rbac = v("rbacAuthorizationEnabled") ?? v("enableRbacAuthorization") ?? false;
  const policies = v("accessPolicies");
  const acls = v("networkAcls");
  return {
    kind: "vault",
    name,
    resource: hasUnknown([v("purgeProtectionEnabled"), v("softDeleteRetentionDays")])
      ? UNKNOWN
      : {
          id: keyVaultId({ subscriptionId, resourceGroup: known(program.str(r, "resourceGroupName")), vault: name }),
          name,
          ...(typeof v("location") === "string" ? { location: v("location") as string } : {}),
          properties: {
            // The provider has no switch for soft delete: Azure turns it on for every vault.
            enableSoftDelete: true,
            ...(typeof v("softDeleteRetentionDays") === "number"
              ? { softDeleteRetentionInDays: v("softDeleteRetentionDays") as number }
              : {}),
            enablePurgeProtection: v("purgeProtectionEnabled") === true,
            enableRbacAuthorization: rbac === true,
            accessPolicies: Array.isArray(policies)
              ? policies.map((a: Record<string, unknown>) => ({
                  objectId: a?.objectId,
                  tenantId: a?.tenantId,
                  permissions: { keys: a?.keyPermissions },
                }))
              : [],
            ...(acls && typeof acls === "object" ? { networkAcls: acls } : {}),
          } as never,
        },
    ...(hasUnknown([rbac, policies, acls]) ? { accessUnknown: true } : {}),
    origin: r.urn,
  };
}

/** The azure provider's server identity (`identityIds`) in Resource Manager's words (`userAssignedIdentities`). */
function identityOf(identity: unknown): unknown {
  if (!identity || typeof identity !== "object") return identity;
  const { identityIds, ...rest } = identity as Record<string, unknown>;
  return { ...rest, ...(identityIds !== undefined ? { userAssignedIdentities: identityIds } : {}) };
}

/**
 * A Key as Resource Manager will answer it: `keyType`, `keySize`, `curve`, the RFC 3339 dates
 * `expirationDate` and `notBeforeDate` as `exp` and `nbf` (seconds), and the rotation policy
 * (`expireAfter`, `automatic`, `notifyBeforeExpiry`) as Key Vault's lifetime actions.
 */
function keyResourceOf(program: ProgramResources, r: ResourceInput): PlannedKey["resource"] {
  const v = (k: string) => program.value(r, k);
  const judged = [v("keyType"), v("keySize"), v("curve"), v("expirationDate"), v("notBeforeDate"), v("rotationPolicy")];
  if (hasUnknown(judged)) return UNKNOWN;
  const seconds = (d: unknown) => (typeof d === "string" && !Number.isNaN(Date.parse(d)) ? Date.parse(d) / 1000 : undefined);
  const exp = seconds(v("expirationDate"));
  const nbf = seconds(v("notBeforeDate"));
  const policy = v("rotationPolicy") as Record<string, unknown> | undefined;
  const automatic = policy?.automatic as Record<string, unknown> | undefined;
  return {
    id: "",
    properties: {
      ...(typeof v("keyType") === "string" ? { kty: v("keyType") as string } : {}),
      ...(typeof v("keySize") === "number" ? { keySize: v("keySize") as number } : {}),
      ...(typeof v("curve") === "string" ? { curveName: v("curve") as string } : {}),
      attributes: { enabled: true, ...(exp !== undefined ? { exp } : {}), ...(nbf !== undefined ? { nbf } : {}) },
      ...(policy && typeof policy === "object"
        ? {
            rotationPolicy: {
              ...(typeof policy.expireAfter === "string" ? { attributes: { expiryTime: policy.expireAfter } } : {}),
              lifetimeActions: [
                ...(automatic
                  ? [
                      {
                        action: { type: "Rotate" },
                        trigger: { timeAfterCreate: automatic.timeAfterCreation, timeBeforeExpiry: automatic.timeBeforeExpiry },
                      },
                    ]
                  : []),
                ...(typeof policy.notifyBeforeExpiry === "string"
                  ? [{ action: { type: "Notify" }, trigger: { timeBeforeExpiry: policy.notifyBeforeExpiry } }]
                  : []),
              ],
            },
          }
        : {}),
    },
  } as Key;
}
