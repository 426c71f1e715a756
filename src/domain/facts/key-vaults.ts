import type { ReadReceipt } from "../../platform/arm/arm-read";
import { mapBounded } from "../../platform/bounded-map";
import type { Vault } from "../../services/keyvault/types";
import { keyVaultId, vaultRefOf } from "../../services/keyvault/vault-ids";
import { UNKNOWN } from "../../platform/unknown-value";
import type { FactOrigin } from "./model/compliance-facts";
import { resourcesOf } from "./carrier";
import { defineDataSource } from "./data-source";
import { defineFactKind } from "./fact-kind";
import {
  customerKeysOf,
  locateVaultShared,
  readVaultOnce,
  unlistedVaultId,
  unlistedVaultRef,
  searchedSubscriptions,
  searchInputOf,
  SEARCH_SUBSCRIPTIONS,
  vaultNotListed,
  vaultSubscriptions,
} from "./key-custody-reads";
import { protectorKeysOfStack, protectorsOfOutputs } from "./database-protectors";
import { sqlDatabase } from "./sql-database-source";
import { readOrFailure, type ReadFailure } from "./read-failure";
import { encryptionProtector } from "./tde-protectors";
import { keyVaultSubjects } from "../residency/residency-subjects";

/**
 * A Key Vault that holds a customer-managed TDE protector, as the key-custody rules see it: whether
 * a deleted key (or the vault itself) can be recovered. Settings a vault never had are absent in
 * Azure's answer; they count as off (`enableSoftDelete` absent: an old vault without soft delete).
 */
export interface KeyVaultFacts extends FactOrigin {
  /** The vault's name, lower-cased, as a protector's key URI names it (its host's first label). */
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

/**
 * The Key Vault a customer-managed TDE protector names (Vaults_Get, after the subscription's listing
 * placed it) as the API returns it (`vaultResource`, and its `resourceGroup`), or why it could not
 * be read (`readError`): one per distinct vault of the protectors, registered once they are read.
 */
export const keyVaultOfProtector = defineDataSource({
  token: "keyvault:Vault",
  title: "the Key Vault of a customer-managed TDE protector",
  inputs: ["subscriptionId", "vault"],
  optional: [SEARCH_SUBSCRIPTIONS],
  output: "vaultResource",
  extraOutputs: ["resourceGroup"],
  unreadable: "reported",
  read: async (c, i) => {
    const subs = searchedSubscriptions(i);
    const ref = await locateVaultShared(c, subs, i.vault);
    if (!ref) return { id: unlistedVaultId(i.subscriptionId, i.vault), readError: vaultNotListed(subs, i.vault) };
    return { id: keyVaultId(ref), extra: { resourceGroup: ref.resourceGroup }, ...(await readOrFailure(() => c.keyVault.getVault(ref))) };
  },
  inputsFromId: (id) => {
    const ref = vaultRefOf(id) ?? unlistedVaultRef(id);
    return ref ? { subscriptionId: ref.subscriptionId, vault: ref.vault } : undefined;
  },
  follows: {
    source: encryptionProtector,
    also: [sqlDatabase],
    instances: (protectors, stack) => {
      const vaults = new Set(customerKeysOf(protectorsOfOutputs(protectors)).map(({ key }) => key.vaultName));
      return [...vaults].map((vault) => ({
        name: `keyvault-${vault}`,
        inputs: { subscriptionId: stack.subscriptionId, vault, ...searchInputOf(stack) },
      }));
    },
  },
});

/**
 * The vault of each customer-managed TDE protector of the stack's servers, once per distinct vault:
 * found by name in the subscription's vault listing (listed once per gathering), then read
 * (Vaults_Get). A vault that cannot be read is a fact that says so.
 */
export const keyVaults = defineFactKind<KeyVaultFacts>({
  key: "keyVaults",
  title: "Key Vault of each customer-managed TDE protector",
  scope: "vault",
  carrier: keyVaultOfProtector,
  // A vault keeps the keys that protect the data: where it is, is where that data's keys live.
  locates: (vaults, source) => keyVaultSubjects(vaults, source),
  gather: async (ctx) => {
    const subs = vaultSubscriptions(ctx.stack);
    const names = [...new Set((await protectorKeysOfStack(ctx)).map((k) => k.key.vaultName))];
    return mapBounded(names, ctx.concurrency, async (name) => {
      const r = await readVaultOnce(ctx, subs, name);
      return keyVaultFactsOf(name, subs[0], r.failure ? { failure: r.failure } : { vault: r.read.value, receipt: r.read.receipt });
    });
  },
  fromResources: (resources, ctx) =>
    resourcesOf(keyVaultOfProtector, resources).map((r) => {
      const p = r.props;
      const name = String(p.vault).toLowerCase();
      const sub = String(p.subscriptionId);
      const vault = ctx.known(() => p.vaultResource as Vault | undefined);
      const failure = ctx.known(() => p.readError as ReadFailure | undefined);
      if (vault === UNKNOWN || failure === UNKNOWN || (!vault && !failure))
        return { name, subscriptionId: sub, enableSoftDelete: false, enablePurgeProtection: false, pending: true, origin: r.urn };
      return { ...keyVaultFactsOf(name, sub, { vault, failure }), origin: r.urn };
    }),
});

/** A vault's facts from what its read gave: the vault (with the read's receipt), or a failure. */
export function keyVaultFactsOf(
  name: string,
  subscriptionId: string,
  read: { vault?: Vault; failure?: ReadFailure; receipt?: ReadReceipt },
): KeyVaultFacts {
  const base = { name: name.toLowerCase(), subscriptionId };
  if (read.failure || !read.vault) {
    return {
      ...base,
      enableSoftDelete: false,
      enablePurgeProtection: false,
      readFailure: read.failure ?? { code: "NotRead", message: "the vault was not read", readAt: new Date().toISOString() },
    };
  }
  const v = read.vault;
  const p = v.properties ?? {};
  const ref = v.id ? vaultRefOf(v.id) : undefined;
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
    ...keyAccessOf(p),
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
