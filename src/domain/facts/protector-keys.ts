import type { ReadReceipt } from "../../platform/arm/arm-read";
import { mapBounded } from "../../platform/bounded-map";
import { parseResourceId } from "../../platform/arm/resource-id";
import type { Key, RotationPolicy } from "../../services/keyvault/types";
import { vaultKeyId, vaultKeyRefOf } from "../../services/keyvault/vault-ids";
import { managedHsmKeyId, managedHsmKeyRefOf } from "../../services/keyvault/managed-hsm-ids";
import { UNKNOWN } from "../../platform/unknown-value";
import type { FactOrigin } from "./model/compliance-facts";
import { resourcesOf } from "./carrier";
import { defineDataSource, logicalName } from "./data-source";
import { defineFactKind } from "./fact-kind";
import {
  customerKeysOf,
  keyIdentity,
  locateManagedHsmShared,
  locateVaultShared,
  managedHsmNotListed,
  readKeyOnce,
  readManagedHsmKey,
  readVaultKey,
  unlistedManagedHsmId,
  unlistedVaultId,
  searchedSubscriptions,
  searchInputOf,
  SEARCH_SUBSCRIPTIONS,
  vaultNotListed,
  vaultSubscriptions,
} from "./key-custody-reads";
import type { DataSourceInputs, DataSourceRead } from "./data-source";
import type { FactClients } from "./fact-clients";
import type { KeyContainerKind } from "./key-vaults";
import { protectorKeysOfStack, protectorsOfOutputs } from "./database-protectors";
import { sqlDatabase } from "./sql-database-source";
import { readOrFailure, type ReadFailure } from "./read-failure";
import { encryptionProtector } from "./tde-protectors";

/**
 * The Key Vault (or Managed HSM) key of a customer-managed TDE protector, as the key-custody rules
 * see it (the management plane's view: attributes and type, never key material). Times are seconds
 * since 1970. An HSM key has the fields of a vault key (ManagedHsmKeyProperties mirrors KeyProperties).
 */
export interface ProtectorKeyFacts extends FactOrigin {
  /** `vault/key[/version]` (`managedhsm:hsm/key[/version]`), lower-cased: how a protector finds its key's facts. */
  identity: string;
  /** Where the key is: a vault, or a Managed HSM (then `vaultName` is the HSM's name). */
  container: KeyContainerKind;
  vaultName: string;
  keyName: string;
  /** The version the protector names; absent for a versionless URI (the key's current version was read). */
  version?: string;
  /** The key's (version's) ARM id, when read. */
  id?: string;
  /** `attributes.enabled`; absent when not reported. */
  enabled?: boolean;
  /** `attributes.nbf`: not usable before (seconds since 1970). */
  notBefore?: number;
  /** `attributes.exp`: expires (seconds since 1970). */
  expires?: number;
  /** `attributes.created`: when this version was made (seconds since 1970): its age, for `maxKeyAgeDays`. */
  created?: number;
  /** `properties.rotationPolicy`, when the key has one: how Key Vault makes new versions by itself. */
  rotationPolicy?: KeyRotationFacts;
  /** `RSA`, `RSA-HSM`, `EC`, `EC-HSM` (open). */
  kty?: string;
  keySize?: number;
  curveName?: string;
  /** The key could not be read: refused (403), gone (404), or its vault is not listed. */
  readFailure?: ReadFailure;
  /** Not known yet (a Pulumi preview of a key data source still to be read). */
  pending?: boolean;
}

/**
 * A key's rotation policy (Key Vault `RotationPolicy`, specs/keyvault/2023-07-01/keys.json): the
 * lifetime of the versions it makes (`expiryTime`, ISO 8601) and its actions, each `rotate` or
 * `notify`, after creation or before expiry (`timeAfterCreate` / `timeBeforeExpiry`, ISO 8601).
 */
export interface KeyRotationFacts {
  expiryTime?: string;
  lifetimeActions: { action: string; timeAfterCreate?: string; timeBeforeExpiry?: string }[];
}

declare module "./model/compliance-facts" {
  interface FactMap {
    protectorKeys: ProtectorKeyFacts;
  }
}

/** The input `kind` of an HSM key's data source (absent for a vault key, as in stacks registered before HSMs were read). */
const MANAGED_HSM = "managedHsm";

/**
 * The Key Vault key a customer-managed TDE protector names (Keys_GetVersion; Keys_Get for a
 * versionless URI), read in the vault the subscription's listing places it in, as the API returns
 * it (`keyResource`: attributes, type and size, never key material, and the vault's
 * `resourceGroup`), or why it could not be read (`readError`): one per distinct key version of the
 * protectors, registered once they are read. With the input `kind: managedHsm`, a key of the Managed
 * HSM named `vault` (ManagedHsmKeys_GetVersion; ManagedHsmKeys_Get), in the same outputs.
 */
export const protectorKey = defineDataSource({
  token: "keyvault:Key",
  title: "the Key Vault (or Managed HSM) key of a customer-managed TDE protector",
  inputs: ["subscriptionId", "vault", "key"],
  optional: ["version", "kind", SEARCH_SUBSCRIPTIONS],
  output: "keyResource",
  extraOutputs: ["resourceGroup"],
  unreadable: "reported",
  read: async (c, i) => {
    if (i.kind === MANAGED_HSM) return readManagedHsmKeySource(c, i);
    const subs = searchedSubscriptions(i);
    const ref = await locateVaultShared(c, subs, i.vault);
    const version = i.version || undefined;
    if (!ref)
      return {
        id: `${unlistedVaultId(i.subscriptionId, i.vault)}/keys/${i.key}${version ? `/versions/${version}` : ""}`,
        readError: vaultNotListed(subs, i.vault),
      };
    const key = { ...ref, key: i.key };
    const read = await readOrFailure(c.reads, async () => (await readVaultKey(c.reads, key, version)).value);
    return { id: vaultKeyId(key, undefined, version), extra: { resourceGroup: ref.resourceGroup }, ...read };
  },
  inputsFromId: (id) => {
    const ref = vaultKeyRefOf(id);
    const version = parseResourceId(id)?.segments.find((s) => s.type.toLowerCase() === "versions")?.name;
    const hsm = managedHsmKeyRefOf(id);
    if (hsm)
      return { subscriptionId: hsm.subscriptionId, vault: hsm.hsm, key: hsm.key, kind: MANAGED_HSM, ...(version ? { version } : {}) };
    const unlistedHsm =
      /^\/subscriptions\/([^/]+)\/providers\/Microsoft\.KeyVault\/managedHSMs\/([^/]+)\/keys\/([^/]+)(?:\/versions\/([^/]+))?$/i.exec(id);
    if (unlistedHsm)
      return {
        subscriptionId: unlistedHsm[1],
        vault: unlistedHsm[2],
        key: unlistedHsm[3],
        kind: MANAGED_HSM,
        ...(unlistedHsm[4] ? { version: unlistedHsm[4] } : {}),
      };
    if (ref) return { subscriptionId: ref.subscriptionId, vault: ref.vault, key: ref.key, ...(version ? { version } : {}) };
    const m = /^\/subscriptions\/([^/]+)\/providers\/Microsoft\.KeyVault\/vaults\/([^/]+)\/keys\/([^/]+)(?:\/versions\/([^/]+))?$/i.exec(
      id,
    );
    return m ? { subscriptionId: m[1], vault: m[2], key: m[3], ...(m[4] ? { version: m[4] } : {}) } : undefined;
  },
  follows: {
    source: encryptionProtector,
    also: [sqlDatabase],
    instances: (protectors, stack) =>
      customerKeysOf(protectorsOfOutputs(protectors)).map(({ key }) => ({
        name: logicalName(
          key.managedHsm ? "managedhsm-key" : "keyvault-key",
          key.vaultName,
          key.keyName,
          ...(key.version ? [key.version] : []),
        ),
        inputs: {
          subscriptionId: stack.subscriptionId,
          vault: key.vaultName,
          key: key.keyName,
          ...(key.version ? { version: key.version } : {}),
          ...(key.managedHsm ? { kind: MANAGED_HSM } : {}),
          ...searchInputOf(stack),
        },
      })),
  },
});

/**
 * The key of each customer-managed TDE protector of the stack's servers, once per distinct key
 * version (Keys_GetVersion; Keys_Get for a versionless URI), in the vault the subscription's listing
 * places it in; an HSM key likewise in its Managed HSM (ManagedHsmKeys_GetVersion). A key that
 * cannot be read is a fact that says so.
 */
export const protectorKeys = defineFactKind<ProtectorKeyFacts>({
  key: "protectorKeys",
  title: "Key Vault (or Managed HSM) key of each customer-managed TDE protector",
  scope: "key",
  carrier: protectorKey,
  gather: async (ctx) => {
    const subs = vaultSubscriptions(ctx.stack);
    const keys = (await protectorKeysOfStack(ctx)).map((k) => k.key);
    return mapBounded(keys, ctx.concurrency, async (k) => {
      const r = await readKeyOnce(ctx, subs, k);
      const ref = { vaultName: k.vaultName, keyName: k.keyName, version: k.version, managedHsm: k.managedHsm };
      return protectorKeyFactsOf(ref, r.failure ? { failure: r.failure } : { key: r.read.value, receipt: r.read.receipt });
    });
  },
  fromResources: (resources, ctx) =>
    resourcesOf(protectorKey, resources).map((r) => {
      const p = r.props;
      const version = typeof p.version === "string" && p.version ? p.version : undefined;
      const ref = { vaultName: String(p.vault), keyName: String(p.key), version, managedHsm: p.kind === MANAGED_HSM };
      const key = ctx.known(() => p.keyResource as Key | undefined);
      const failure = ctx.known(() => p.readError as ReadFailure | undefined);
      if (key === UNKNOWN || failure === UNKNOWN || (!key && !failure)) return { ...identityOf(ref), pending: true, origin: r.urn };
      return { ...protectorKeyFactsOf(ref, { key, failure }), origin: r.urn };
    }),
});

/** A key's facts from what its read gave: the key (with the read's receipt), or a failure. */
export function protectorKeyFactsOf(
  ref: KeyFactsRef,
  read: { key?: Key; failure?: ReadFailure; receipt?: ReadReceipt },
): ProtectorKeyFacts {
  const base = identityOf(ref);
  if (read.failure || !read.key) {
    return { ...base, readFailure: read.failure ?? { code: "NotRead", message: "the key was not read", readAt: new Date().toISOString() } };
  }
  const k = read.key;
  const p = k.properties ?? {};
  const a = p.attributes ?? {};
  return {
    ...base,
    ...(k.id ? { id: k.id } : {}),
    ...(typeof a.enabled === "boolean" ? { enabled: a.enabled } : {}),
    ...(typeof a.nbf === "number" ? { notBefore: a.nbf } : {}),
    ...(typeof a.exp === "number" ? { expires: a.exp } : {}),
    ...(typeof a.created === "number" ? { created: a.created } : {}),
    ...(p.rotationPolicy && typeof p.rotationPolicy === "object" ? { rotationPolicy: rotationFactsOf(p.rotationPolicy) } : {}),
    ...(typeof p.kty === "string" ? { kty: p.kty } : {}),
    ...(typeof p.keySize === "number" ? { keySize: p.keySize } : {}),
    ...(typeof p.curveName === "string" ? { curveName: p.curveName } : {}),
    ...(read.receipt ? { reads: [read.receipt] } : {}),
  };
}

/** The policy's parts the rules and reports use, read tolerantly: an action without a type is left out. */
function rotationFactsOf(policy: RotationPolicy): KeyRotationFacts {
  const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);
  const expiryTime = str(policy.attributes?.expiryTime);
  const actions = Array.isArray(policy.lifetimeActions) ? policy.lifetimeActions : [];
  return {
    ...(expiryTime ? { expiryTime } : {}),
    lifetimeActions: actions.flatMap((a) => {
      const action = str(a?.action?.type);
      if (!action) return [];
      const after = str(a.trigger?.timeAfterCreate);
      const before = str(a.trigger?.timeBeforeExpiry);
      return [{ action, ...(after ? { timeAfterCreate: after } : {}), ...(before ? { timeBeforeExpiry: before } : {}) }];
    }),
  };
}

/** The key a fact is about: its vault (or, with `managedHsm`, its HSM), name and version. */
type KeyFactsRef = { vaultName: string; keyName: string; version?: string; managedHsm?: boolean };

function identityOf(ref: KeyFactsRef) {
  return {
    identity: keyIdentity(ref.vaultName, ref.keyName, ref.version, ref.managedHsm),
    container: (ref.managedHsm ? "managedHsm" : "vault") as KeyContainerKind,
    vaultName: ref.vaultName.toLowerCase(),
    keyName: ref.keyName,
    ...(ref.version ? { version: ref.version } : {}),
  };
}

/** The data source's read of an HSM key: its HSM located by name in the subscription's listing, then ManagedHsmKeys_GetVersion (or _Get). */
async function readManagedHsmKeySource(c: FactClients, i: DataSourceInputs): Promise<DataSourceRead> {
  const subs = searchedSubscriptions(i);
  const hsm = await locateManagedHsmShared(c, subs, i.vault);
  const version = i.version || undefined;
  if (!hsm)
    return {
      id: `${unlistedManagedHsmId(i.subscriptionId, i.vault)}/keys/${i.key}${version ? `/versions/${version}` : ""}`,
      readError: managedHsmNotListed(subs, i.vault),
    };
  const key = { ...hsm, key: i.key };
  const read = await readOrFailure(c.reads, async () => (await readManagedHsmKey(c.reads, key, version)).value);
  return { id: managedHsmKeyId(key, undefined, version), extra: { resourceGroup: hsm.resourceGroup }, ...read };
}
