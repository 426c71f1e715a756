import { UNKNOWN, type Maybe } from "../../../platform/unknown-value";
import { keyVaultId } from "../../../services/keyvault/vault-ids";
import { managedHsmId } from "../../../services/keyvault/managed-hsm-ids";
import { keyVaultKeyUri, parseKeyVaultKeyUri } from "../../../services/keyvault/key-uri";
import type { Key } from "../../../services/keyvault/types";
import { keyIdentity, type ProtectorKeyRef } from "../key-custody-reads";
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
 * The azure-native resource types the pack reads, as the provider's schema names them
 * (specs/pulumi-azure-native/schema-excerpt.json).
 */
export const AZURE_NATIVE = {
  resourceGroup: "azure-native:resources:ResourceGroup",
  server: "azure-native:sql:Server",
  database: "azure-native:sql:Database",
  tde: "azure-native:sql:TransparentDataEncryption",
  protector: "azure-native:sql:EncryptionProtector",
  serverKey: "azure-native:sql:ServerKey",
  vault: "azure-native:keyvault:Vault",
  key: "azure-native:keyvault:Key",
  managedHsm: "azure-native:keyvault:ManagedHsm",
  roleAssignment: "azure-native:authorization:RoleAssignment",
} as const;

/** What an azure-native program declares that the TDE and key-custody rules judge. */
export function azureNativeEstate(program: ProgramResources, subscriptionId: string): ProgramEstate {
  const estate = emptyEstate();
  if (!program.has(...Object.values(AZURE_NATIVE))) return estate;
  const names = new Names(program);
  const serverOf = (r: ResourceInput): PlannedServerRef => ({
    subscriptionId,
    resourceGroup: names.resourceGroup(r),
    server: names.of(r, "serverName", AZURE_NATIVE.server, "serverName"),
  });
  for (const r of program.ofType(AZURE_NATIVE.tde))
    estate.databases.push({
      ...serverOf(r),
      database: names.of(r, "databaseName", AZURE_NATIVE.database, "databaseName"),
      state: program.str(r, "state"),
      origin: r.urn,
    });
  for (const r of program.ofType(AZURE_NATIVE.server)) {
    const ref = { subscriptionId, resourceGroup: names.resourceGroup(r), server: names.known(program.str(r, "serverName")) };
    estate.servers.push({
      ...ref,
      identity: plannedIdentity(program.value(r, "identity"), program.value(r, "primaryUserAssignedIdentityId")),
      origin: r.urn,
    });
  }
  const keys = new KeyRefs(program, names);
  for (const r of program.ofType(AZURE_NATIVE.protector)) estate.protectors.push({ ...serverOf(r), ...keys.ofProtector(r), origin: r.urn });
  // A server created with a key (`keyId`) and no protector resource: that key is its protector.
  for (const r of program.ofType(AZURE_NATIVE.server)) {
    const server = estate.servers.find((s) => s.origin === r.urn)!;
    const keyId = program.str(r, "keyId");
    if (keyId === undefined || estate.protectors.some((p) => p.server === server.server && p.resourceGroup === server.resourceGroup))
      continue;
    estate.protectors.push({ ...server, ...keys.ofUri(r, "keyId", keyId), origin: r.urn });
  }
  for (const r of program.ofType(AZURE_NATIVE.vault)) estate.vaults.push(vaultOf(program, r, subscriptionId, names));
  for (const r of program.ofType(AZURE_NATIVE.managedHsm)) estate.vaults.push(managedHsmOf(program, r, subscriptionId, names));
  for (const r of program.ofType(AZURE_NATIVE.key)) {
    const ref = keys.ofKey(r);
    if (ref) estate.keys.push({ ...ref, resource: keyResourceOf(program, r), origin: r.urn });
  }
  for (const r of program.ofType(AZURE_NATIVE.roleAssignment)) {
    const scope = program.str(r, "scope");
    const vault = scope === UNKNOWN ? program.source(r, "scope", AZURE_NATIVE.vault) : undefined;
    const principalId = program.str(r, "principalId");
    const roleDefinitionId = program.str(r, "roleDefinitionId");
    estate.grants.push({
      principalId: principalId ?? "",
      scope: scope ?? "",
      ...(vault ? { vault: names.vaultName(vault) } : {}),
      roleDefinitionId: roleDefinitionId ?? "",
      ...(program.value(r, "condition") ? { conditional: true } : {}),
      origin: r.urn,
    });
  }
  return estate;
}

/** Names as the program gives them, followed to the resource they flow from when unknown at preview. */
class Names {
  constructor(private readonly program: ProgramResources) {}

  /** A known name, or NOT_KNOWN_YET. */
  known(v: Maybe<string | undefined>): string {
    return typeof v === "string" ? v : NOT_KNOWN_YET;
  }

  /** `property` of `r`, or, unknown, the `sourceProperty` of the `sourceType` resource it flows from. */
  of(r: ResourceInput, property: string, sourceType: string, sourceProperty: string): string {
    const v = this.program.str(r, property);
    if (v !== UNKNOWN) return this.known(v);
    const from = this.program.source(r, property, sourceType);
    return this.known(from ? this.program.str(from, sourceProperty) : UNKNOWN);
  }

  resourceGroup(r: ResourceInput): string {
    return this.of(r, "resourceGroupName", AZURE_NATIVE.resourceGroup, "resourceGroupName");
  }

  vaultName(vault: ResourceInput): string {
    return this.known(this.program.str(vault, "vaultName")).toLowerCase();
  }
}

/** The keys protectors name: by URI, by server key name, or followed to the Key resource whose URI flows in. */
class KeyRefs {
  constructor(
    private readonly program: ProgramResources,
    private readonly names: Names,
  ) {}

  /** An EncryptionProtector's key type and key (`serverKeyName` names a ServerKey, whose `uri` names the key). */
  ofProtector(r: ResourceInput): Omit<PlannedProtector, keyof PlannedServerRef | "origin"> {
    const p = this.program;
    const type = p.str(r, "serverKeyType");
    const rotation = p.value(r, "autoRotationEnabled");
    const common = typeof rotation === "boolean" ? { autoRotationEnabled: rotation } : {};
    if (type === UNKNOWN || type === undefined || type.toLowerCase() !== "azurekeyvault") return { serverKeyType: type, ...common };
    // After an update the provider's outputs carry the key's URI.
    const uri = p.str(r, "uri");
    if (typeof uri === "string" && uri) return { ...this.ofUri(r, "uri", uri), ...common };
    const name = p.str(r, "serverKeyName");
    const serverKey =
      p.source(r, "serverKeyName", AZURE_NATIVE.serverKey) ??
      (typeof name === "string" ? p.ofType(AZURE_NATIVE.serverKey).find((k) => p.str(k, "keyName") === name) : undefined);
    if (serverKey)
      return {
        ...this.ofUri(serverKey, "uri", p.str(serverKey, "uri")),
        ...(typeof name === "string" ? { serverKeyName: name } : {}),
        ...common,
      };
    if (name === UNKNOWN || name === undefined) return { serverKeyType: UNKNOWN };
    // A server key the program does not declare: Azure names it <vault>_<key>_<version>.
    const parts = name.split("_");
    if (parts.length !== 3) return { serverKeyType: type, serverKeyName: name, ...common };
    return { ...this.ofUri(r, "serverKeyName", keyVaultKeyUri(parts[0], parts[1], parts[2])), serverKeyName: name, ...common };
  }

  /** A customer-managed protector whose key URI is `uri` (a property of `r`), followed to its Key resource when unknown. */
  ofUri(r: ResourceInput, property: string, uri: Maybe<string | undefined>): Omit<PlannedProtector, keyof PlannedServerRef | "origin"> {
    const base = { serverKeyType: "AzureKeyVault" };
    if (uri === UNKNOWN) {
      const key = this.program.source(r, property, AZURE_NATIVE.key);
      const ref = key && this.ofKey(key);
      if (!ref) return { serverKeyType: UNKNOWN };
      const keyUri = keyVaultKeyUri(ref.vaultName, ref.keyName);
      return { ...base, keyUri, key: keyRef(keyUri, ref.vaultName, ref.keyName, undefined, false) };
    }
    if (!uri) return base;
    const parsed = parseKeyVaultKeyUri(uri);
    return {
      ...base,
      keyUri: uri,
      ...(parsed ? { key: keyRef(uri, parsed.vaultName, parsed.keyName, parsed.version, parsed.managedHsm) } : {}),
    };
  }

  /** A Key resource's vault and name, when known (its vault's name followed to the Vault resource). */
  ofKey(r: ResourceInput): Pick<PlannedKey, "container" | "vaultName" | "keyName"> | undefined {
    const vaultName = this.names.of(r, "vaultName", AZURE_NATIVE.vault, "vaultName");
    const keyName = this.program.str(r, "keyName");
    if (vaultName === NOT_KNOWN_YET || typeof keyName !== "string") return undefined;
    return { container: "vault", vaultName: vaultName.toLowerCase(), keyName };
  }
}

function keyRef(uri: string, vaultName: string, keyName: string, version: string | undefined, managedHsm: boolean): ProtectorKeyRef {
  return {
    uri,
    vaultName: vaultName.toLowerCase(),
    keyName,
    ...(version ? { version } : {}),
    managedHsm,
    identity: keyIdentity(vaultName, keyName, version, managedHsm),
  };
}

/**
 * A Vault as Resource Manager will answer it: its `properties` as the program sets them, with the
 * schema's defaults for what it leaves out (`enableSoftDelete` true, `enableRbacAuthorization` false).
 */
function vaultOf(program: ProgramResources, r: ResourceInput, subscriptionId: string, names: Names): PlannedVault {
  const name = names.vaultName(r);
  const props = program.value(r, "properties");
  const p = props && typeof props === "object" ? (props as Record<string, unknown>) : {};
  const recoverability = [p.enableSoftDelete, p.enablePurgeProtection, p.softDeleteRetentionInDays];
  const access = [p.enableRbacAuthorization, p.accessPolicies, p.networkAcls];
  const id = keyVaultId({ subscriptionId, resourceGroup: names.resourceGroup(r), vault: name });
  return {
    kind: "vault",
    name,
    resource: hasUnknown(recoverability)
      ? UNKNOWN
      : {
          id,
          name,
          ...(typeof program.value(r, "location") === "string" ? { location: program.value(r, "location") as string } : {}),
          properties: {
            ...(p as object),
            enableSoftDelete: p.enableSoftDelete ?? true,
            enableRbacAuthorization: p.enableRbacAuthorization ?? false,
          } as never,
        },
    ...(hasUnknown(access) ? { accessUnknown: true } : {}),
    origin: r.urn,
  };
}

/** A Managed HSM as Resource Manager will answer it; the schema's defaults: soft delete and purge protection on. */
function managedHsmOf(program: ProgramResources, r: ResourceInput, subscriptionId: string, names: Names): PlannedVault {
  const name = names.known(program.str(r, "name")).toLowerCase();
  const props = program.value(r, "properties");
  const p = props && typeof props === "object" ? (props as Record<string, unknown>) : {};
  const id = managedHsmId({ subscriptionId, resourceGroup: names.resourceGroup(r), hsm: name });
  return {
    kind: "managedHsm",
    name,
    resource: hasUnknown([p.enableSoftDelete, p.enablePurgeProtection])
      ? UNKNOWN
      : {
          id,
          name,
          properties: {
            ...(p as object),
            enableSoftDelete: p.enableSoftDelete ?? true,
            enablePurgeProtection: p.enablePurgeProtection ?? true,
          } as never,
        },
    origin: r.urn,
  };
}

/** A Key's outputs the rules judge (`keyvault:Key`'s `properties` of the schema, at the top of its outputs). */
const KEY_OUTPUTS = ["kty", "keySize", "curveName", "attributes", "rotationPolicy"];

/**
 * A Key as Resource Manager will answer it. azure-native names the key's dates `attributes.expires`
 * and `attributes.notBefore` (seconds since 1970); Resource Manager's JSON says `exp` and `nbf`.
 */
function keyResourceOf(program: ProgramResources, r: ResourceInput): PlannedKey["resource"] {
  // Inputs nest them under `properties`; the provider's outputs (a key already created) have them at the top.
  const nested = program.value(r, "properties");
  const props =
    nested !== undefined
      ? nested
      : Object.fromEntries(KEY_OUTPUTS.flatMap((k) => (program.value(r, k) === undefined ? [] : [[k, program.value(r, k)]])));
  if (hasUnknown(props)) return UNKNOWN;
  const p = props && typeof props === "object" ? (props as Record<string, unknown>) : {};
  const a = p.attributes && typeof p.attributes === "object" ? (p.attributes as Record<string, unknown>) : {};
  return {
    id: "",
    properties: {
      ...p,
      attributes: {
        ...(typeof a.enabled === "boolean" ? { enabled: a.enabled } : {}),
        ...(typeof a.expires === "number" ? { exp: a.expires } : {}),
        ...(typeof a.notBefore === "number" ? { nbf: a.notBefore } : {}),
        ...(typeof a.created === "number" ? { created: a.created } : {}),
      },
    },
  } as Key;
}
