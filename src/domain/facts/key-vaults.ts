import type { ReadReceipt } from "../../platform/arm/arm-read";
import { mapBounded } from "../../platform/bounded-map";
import type { Vault } from "../../services/keyvault/types";
import type { ManagedHsm } from "../../services/keyvault/managed-hsm-types";
import { managedHsmId, managedHsmRefOf } from "../../services/keyvault/managed-hsm-ids";
import { keyVaultId, vaultRefOf } from "../../services/keyvault/vault-ids";
import { UNKNOWN } from "../../platform/unknown-value";
import type { FactOrigin } from "./model/compliance-facts";
import { resourcesOf } from "./carrier";
import { defineDataSource } from "./data-source";
import { defineFactKind } from "./fact-kind";
import {
  customerKeysOf,
  locateManagedHsmShared,
  locateVaultShared,
  managedHsmNotListed,
  readManagedHsmOnce,
  readVaultOnce,
  unlistedManagedHsmId,
  unlistedManagedHsmRef,
  unlistedVaultId,
  unlistedVaultRef,
  searchedSubscriptions,
  searchInputOf,
  SEARCH_SUBSCRIPTIONS,
  vaultNotListed,
  vaultSubscriptions,
  type ProtectorKeyRef,
} from "./key-custody-reads";
import type { DataSourceInputs, DataSourceRead } from "./data-source";
import type { FactClients } from "./fact-clients";
import { protectorKeysOfStack, protectorsOfOutputs } from "./database-protectors";
import { sqlDatabase } from "./sql-database-source";
import { readOrFailure, type ReadFailure } from "./read-failure";
import { encryptionProtector } from "./tde-protectors";
import { managedHsmParamsOf, vaultParamsOf } from "./read-params";
import { keyVaultSubjects } from "../residency/residency-subjects";

/** What holds a protector's key: a Key Vault (`vaults`) or a Managed HSM pool (`managedHSMs`). */
export type KeyContainerKind = "vault" | "managedHsm";

/**
 * A Key Vault, or a Managed HSM, that holds a customer-managed TDE protector, as the key-custody
 * rules see it: whether a deleted key (or the container itself) can be recovered. Settings a vault
 * never had are absent in Azure's answer; they count as off (`enableSoftDelete` absent: an old vault
 * without soft delete), as Azure Policy counts them for vaults and HSMs alike.
 */
export interface KeyVaultFacts extends FactOrigin {
  /** A vault or a Managed HSM: both are read the same way (located by name in the subscription's listing, then read). */
  kind: KeyContainerKind;
  /** The vault's (or HSM's) name, lower-cased, as a protector's key URI names it (its host's first label). */
  name: string;
  subscriptionId: string;
  /** The vault's ARM id and resource group, when Resource Manager listed it. */
  id?: string;
  resourceGroup?: string;
  location?: string;
  enableSoftDelete: boolean;
  softDeleteRetentionInDays?: number;
  enablePurgeProtection: boolean;
  /** Whether the vault grants data access by Azure RBAC role assignments rather than its access policies (absent: not read). */
  enableRbacAuthorization?: boolean;
  /** The access policies' principals and key permissions (compact: what `tde-key-access` judges; access-policy vaults only). */
  accessPolicies?: VaultKeyAccessPolicy[];
  /** The vault's firewall: `defaultAction` (`Allow`, `Deny`) and `bypass` (`AzureServices`, `None`), as Azure reports them. */
  networkAcls?: { defaultAction?: string; bypass?: string };
  /** `properties.provisioningState` as reported (an HSM's `Succeeded`, `Provisioning`, `SecurityDomainRestore` ...). */
  provisioningState?: string;
  /** The vault could not be read: not listed for this identity, or refused (403) or gone (404) when read. */
  readFailure?: ReadFailure;
  /** Not known yet (a Pulumi preview of a vault data source still to be read). */
  pending?: boolean;
}

/** One access policy of a vault, as far as key use goes: whose it is and its key permissions. */
export interface VaultKeyAccessPolicy {
  objectId: string;
  tenantId?: string;
  /** `permissions.keys` (`get`, `wrapKey`, `unwrapKey`, `all` …). */
  keys: string[];
}

declare module "./model/compliance-facts" {
  interface FactMap {
    keyVaults: KeyVaultFacts;
  }
}

/** The input `kind` of a Managed HSM's data source (absent for a vault, as in stacks registered before HSMs were read). */
const MANAGED_HSM = "managedHsm";

/**
 * The Key Vault a customer-managed TDE protector names (Vaults_Get, after the subscription's listing
 * placed it) as the API returns it (`vaultResource`, and its `resourceGroup`), or why it could not
 * be read (`readError`): one per distinct vault of the protectors, registered once they are read.
 * With the input `kind: managedHsm`, the Managed HSM a protector's key URI names instead
 * (ManagedHsms_Get, after ManagedHsms_ListBySubscription placed it), in the same outputs.
 */
export const keyVaultOfProtector = defineDataSource({
  token: "keyvault:Vault",
  title: "the Key Vault (or Managed HSM) of a customer-managed TDE protector",
  inputs: ["subscriptionId", "vault"],
  optional: ["kind", SEARCH_SUBSCRIPTIONS],
  output: "vaultResource",
  extraOutputs: ["resourceGroup"],
  unreadable: "reported",
  read: async (c, i) => {
    if (i.kind === MANAGED_HSM) return readManagedHsmSource(c, i);
    const subs = searchedSubscriptions(i);
    const ref = await locateVaultShared(c, subs, i.vault);
    if (!ref) return { id: unlistedVaultId(i.subscriptionId, i.vault), readError: vaultNotListed(subs, i.vault) };
    const read = await readOrFailure(c.reads, async () => (await c.reads.read("Vaults_Get", vaultParamsOf(ref))).value);
    return { id: keyVaultId(ref), extra: { resourceGroup: ref.resourceGroup }, ...read };
  },
  inputsFromId: (id): DataSourceInputs | undefined => {
    const hsm = managedHsmRefOf(id) ?? unlistedManagedHsmRef(id);
    if (hsm) return { subscriptionId: hsm.subscriptionId, vault: hsm.hsm, kind: MANAGED_HSM };
    const ref = vaultRefOf(id) ?? unlistedVaultRef(id);
    return ref ? { subscriptionId: ref.subscriptionId, vault: ref.vault } : undefined;
  },
  follows: {
    source: encryptionProtector,
    also: [sqlDatabase],
    instances: (protectors, stack) => {
      const containers = new Map<string, ProtectorKeyRef>();
      for (const { key } of customerKeysOf(protectorsOfOutputs(protectors)))
        containers.set(`${key.managedHsm ? "managedhsm" : "keyvault"}-${key.vaultName}`, key);
      return [...containers].map(([name, key]) => ({
        name,
        inputs: {
          subscriptionId: stack.subscriptionId,
          vault: key.vaultName,
          ...(key.managedHsm ? { kind: MANAGED_HSM } : {}),
          ...searchInputOf(stack),
        },
      }));
    },
  },
});

/** The data source's read of a Managed HSM: located by name in the subscription's listing, then ManagedHsms_Get. */
async function readManagedHsmSource(c: FactClients, i: DataSourceInputs): Promise<DataSourceRead> {
  const subs = searchedSubscriptions(i);
  const ref = await locateManagedHsmShared(c, subs, i.vault);
  if (!ref) return { id: unlistedManagedHsmId(i.subscriptionId, i.vault), readError: managedHsmNotListed(subs, i.vault) };
  return {
    id: managedHsmId(ref),
    extra: { resourceGroup: ref.resourceGroup },
    ...(await readOrFailure(c.reads, async () => (await c.reads.read("ManagedHsms_Get", managedHsmParamsOf(ref))).value)),
  };
}

/**
 * The vault of each customer-managed TDE protector of the stack's servers, once per distinct vault:
 * found by name in the subscription's vault listing (listed once per gathering), then read
 * (Vaults_Get); a Managed HSM likewise (ManagedHsms_ListBySubscription, ManagedHsms_Get). A vault
 * or HSM that cannot be read is a fact that says so.
 */
export const keyVaults = defineFactKind<KeyVaultFacts>({
  key: "keyVaults",
  title: "Key Vault (or Managed HSM) of each customer-managed TDE protector",
  scope: "vault",
  carrier: keyVaultOfProtector,
  // A vault keeps the keys that protect the data: where it is, is where that data's keys live.
  locates: (vaults, source) => keyVaultSubjects(vaults, source),
  gather: async (ctx) => {
    const subs = vaultSubscriptions(ctx.stack);
    const containers = new Map<string, ProtectorKeyRef>();
    for (const { key } of await protectorKeysOfStack(ctx)) containers.set(`${key.managedHsm}/${key.vaultName}`, key);
    return mapBounded([...containers.values()], ctx.concurrency, async ({ vaultName: name, managedHsm }) => {
      const r = managedHsm ? await readManagedHsmOnce(ctx, subs, name) : await readVaultOnce(ctx, subs, name);
      const kind = managedHsm ? "managedHsm" : "vault";
      return keyVaultFactsOf(name, subs[0], r.failure ? { failure: r.failure } : { vault: r.read.value, receipt: r.read.receipt }, kind);
    });
  },
  fromResources: (resources, ctx) =>
    resourcesOf(keyVaultOfProtector, resources).map((r) => {
      const p = r.props;
      const name = String(p.vault).toLowerCase();
      const sub = String(p.subscriptionId);
      const kind: KeyContainerKind = p.kind === MANAGED_HSM ? "managedHsm" : "vault";
      const vault = ctx.known(() => p.vaultResource as Vault | ManagedHsm | undefined);
      const failure = ctx.known(() => p.readError as ReadFailure | undefined);
      if (vault === UNKNOWN || failure === UNKNOWN || (!vault && !failure))
        return { kind, name, subscriptionId: sub, enableSoftDelete: false, enablePurgeProtection: false, pending: true, origin: r.urn };
      return { ...keyVaultFactsOf(name, sub, { vault, failure }, kind), origin: r.urn };
    }),
});

/** A vault's (or, with `kind` managedHsm, an HSM's) facts from what its read gave: the resource (with the read's receipt), or a failure. */
export function keyVaultFactsOf(
  name: string,
  subscriptionId: string,
  read: { vault?: Vault | ManagedHsm; failure?: ReadFailure; receipt?: ReadReceipt },
  kind: KeyContainerKind = "vault",
): KeyVaultFacts {
  const base = { kind, name: name.toLowerCase(), subscriptionId };
  if (read.failure || !read.vault) {
    return {
      ...base,
      enableSoftDelete: false,
      enablePurgeProtection: false,
      readFailure: read.failure ?? {
        code: "NotRead",
        message: `the ${kind === "vault" ? "vault" : "managed HSM"} was not read`,
        readAt: new Date().toISOString(),
      },
    };
  }
  const v = read.vault;
  const p = v.properties ?? {};
  const ref = v.id ? (kind === "vault" ? vaultRefOf(v.id) : managedHsmRefOf(v.id)) : undefined;
  return {
    ...base,
    ...(v.id ? { id: v.id } : {}),
    // Where the vault was found: the stack's subscription, or one of stackwarden:keyVaultSubscriptions.
    ...(ref ? { subscriptionId: ref.subscriptionId, resourceGroup: ref.resourceGroup } : {}),
    ...(typeof v.location === "string" ? { location: v.location } : {}),
    // Azure leaves a setting out (or sends null) when it was never turned on.
    enableSoftDelete: p.enableSoftDelete === true,
    ...(typeof p.softDeleteRetentionInDays === "number" ? { softDeleteRetentionInDays: p.softDeleteRetentionInDays } : {}),
    enablePurgeProtection: p.enablePurgeProtection === true,
    // An HSM grants key access by its own local RBAC (not read here): the vault's access model only.
    ...(kind === "vault" ? keyAccessOf(p as NonNullable<Vault["properties"]>) : {}),
    ...(typeof p.provisioningState === "string" ? { provisioningState: p.provisioningState } : {}),
    ...(read.receipt ? { reads: [read.receipt] } : {}),
  };
}

/** What a vault says about who may use its keys: its permission model, access policies (compactly) and firewall. */
function keyAccessOf(
  p: NonNullable<Vault["properties"]>,
): Pick<KeyVaultFacts, "enableRbacAuthorization" | "accessPolicies" | "networkAcls"> {
  const rbac = p.enableRbacAuthorization === true;
  const policies = Array.isArray(p.accessPolicies) ? p.accessPolicies : [];
  const acls = p.networkAcls && typeof p.networkAcls === "object" ? p.networkAcls : undefined;
  return {
    enableRbacAuthorization: rbac,
    // An RBAC vault ignores its access policies: Azure grants data access by role assignments only.
    ...(rbac
      ? {}
      : {
          accessPolicies: policies
            .filter((a) => typeof a?.objectId === "string")
            .map((a) => ({
              objectId: a.objectId!,
              ...(typeof a.tenantId === "string" ? { tenantId: a.tenantId } : {}),
              keys: Array.isArray(a.permissions?.keys) ? a.permissions.keys.filter((k): k is string => typeof k === "string") : [],
            })),
        }),
    ...(acls
      ? {
          networkAcls: {
            ...(typeof acls.defaultAction === "string" ? { defaultAction: acls.defaultAction } : {}),
            ...(typeof acls.bypass === "string" ? { bypass: acls.bypass } : {}),
          },
        }
      : {}),
  };
}
