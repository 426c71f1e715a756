import type { ClientSet } from "../../clients/client-set";
import { keyVaultId, subscriptionVaultsPath, vaultKeyId, vaultKeyRefOf, vaultRefOf } from "../../services/keyvault/vault-ids";
import type { Vault, VaultRef } from "../../services/keyvault/types";
import { childId, parseResourceId, sqlServerId } from "../../platform/arm/resource-id";
import { vaultNotListed } from "../../domain/facts/key-custody-reads";
import { readFailureOf, type ReadFailure } from "../../domain/facts/read-failure";
import { checkDataSourceInputSpec, type InputFailure } from "./data-source-inputs";

/**
 * The key-custody data sources (read-only, like the other data sources): a SQL server's TDE
 * protector, and the Key Vault and key it names. The program registers one protector per server and,
 * once the protectors are read, one vault per distinct vault and one key per distinct key version. A
 * vault or key that cannot be read (403, 404, a vault Resource Manager does not list) is an output
 * (`readError`) the policy pack judges, never a failed resource; so is a protector that cannot be read.
 */
export type KeyCustodySourceKind = "sql:EncryptionProtector" | "keyvault:Vault" | "keyvault:Key";

type Inputs = Record<string, string>;

/** What one read gave: the object as the API returned it, or why it could not be read, and the data source's id. */
interface SourceRead {
  id: string;
  value?: object;
  readError?: ReadFailure;
  /** Outputs beside the object (the vault's resource group, as the listing placed it). */
  extra?: Record<string, string>;
}

interface KeyCustodySpec {
  /** Required string inputs. */
  inputs: string[];
  /** Optional string inputs (the key's version). */
  optional?: string[];
  /** The output property holding what the API returned (never an input's name). */
  output: string;
  read(clients: KeyCustodyClients, i: Inputs): Promise<SourceRead>;
  /** The inputs an id names (a lookup by id), or undefined when it names none of this kind. */
  inputsFromId(id: string): Inputs | undefined;
}

/** The clients the reads go through (the client set's: its `remember` shares one vault listing between data sources). */
export type KeyCustodyClients = Pick<ClientSet, "sql" | "keyVault" | "remember">;

/** How long a plugin shares one listing of a subscription's vaults between vault and key data sources, in ms. */
const SHARE_LISTING_MS = 30_000;

export const KEY_CUSTODY_SOURCES: Record<KeyCustodySourceKind, KeyCustodySpec> = {
  "sql:EncryptionProtector": {
    inputs: ["subscriptionId", "resourceGroup", "server"],
    output: "protector",
    read: async (c, i) => {
      const ref = { subscriptionId: i.subscriptionId, resourceGroup: i.resourceGroup, server: i.server };
      const id = childId(sqlServerId(ref), "encryptionProtector", "current");
      return { id, ...(await reported(() => c.sql.getEncryptionProtector(ref))) };
    },
    inputsFromId: (id) => {
      const p = parseResourceId(id);
      const server = p?.segments.find((s) => s.type.toLowerCase() === "servers")?.name;
      const protector = p?.segments.find((s) => s.type.toLowerCase() === "encryptionprotector");
      if (!p?.resourceGroup || !server || !protector) return undefined;
      return { subscriptionId: p.subscriptionId, resourceGroup: p.resourceGroup, server };
    },
  },
  "keyvault:Vault": {
    inputs: ["subscriptionId", "vault"],
    output: "vaultResource",
    read: async (c, i) => {
      const ref = await locateVault(c, i.subscriptionId, i.vault);
      if (!ref) return { id: unlistedVaultId(i.subscriptionId, i.vault), readError: vaultNotListed(i.subscriptionId, i.vault) };
      return { id: keyVaultId(ref), extra: { resourceGroup: ref.resourceGroup }, ...(await reported(() => c.keyVault.getVault(ref))) };
    },
    inputsFromId: (id) => {
      const ref = vaultRefOf(id) ?? unlistedVaultRef(id);
      return ref ? { subscriptionId: ref.subscriptionId, vault: ref.vault } : undefined;
    },
  },
  "keyvault:Key": {
    inputs: ["subscriptionId", "vault", "key"],
    optional: ["version"],
    output: "keyResource",
    read: async (c, i) => {
      const ref = await locateVault(c, i.subscriptionId, i.vault);
      const version = i.version || undefined;
      if (!ref)
        return {
          id: `${unlistedVaultId(i.subscriptionId, i.vault)}/keys/${i.key}${version ? `/versions/${version}` : ""}`,
          readError: vaultNotListed(i.subscriptionId, i.vault),
        };
      const key = { ...ref, key: i.key };
      const read = await reported(() => (version ? c.keyVault.getKeyVersion(key, version) : c.keyVault.getKey(key)));
      return { id: vaultKeyId(key, undefined, version), extra: { resourceGroup: ref.resourceGroup }, ...read };
    },
    inputsFromId: (id) => {
      const ref = vaultKeyRefOf(id);
      const p = parseResourceId(id);
      const version = p?.segments.find((s) => s.type.toLowerCase() === "versions")?.name;
      if (ref) return { subscriptionId: ref.subscriptionId, vault: ref.vault, key: ref.key, ...(version ? { version } : {}) };
      const m = /^\/subscriptions\/([^/]+)\/providers\/Microsoft\.KeyVault\/vaults\/([^/]+)\/keys\/([^/]+)(?:\/versions\/([^/]+))?$/i.exec(
        id,
      );
      return m ? { subscriptionId: m[1], vault: m[2], key: m[3], ...(m[4] ? { version: m[4] } : {}) } : undefined;
    },
  },
};

/** A read whose 403 or 404 is reported as `readError` rather than thrown. */
async function reported(read: () => Promise<object>): Promise<Pick<SourceRead, "value" | "readError">> {
  try {
    return { value: await read() };
  } catch (e) {
    const failure = readFailureOf(e);
    if (!failure) throw e;
    return { readError: failure };
  }
}

/** Where a vault named in a key URI is: found by name in the subscription's listing (shared for a short while by the plugin). */
async function locateVault(c: KeyCustodyClients, subscriptionId: string, vault: string): Promise<VaultRef | undefined> {
  const vaults = await c.remember<Vault[]>(`keyvault-listing:${subscriptionId.toLowerCase()}`, SHARE_LISTING_MS, () =>
    c.keyVault.listVaultsBySubscription(subscriptionId),
  );
  const found = vaults.find((v) => (v.name ?? "").toLowerCase() === vault.toLowerCase());
  return found?.id ? vaultRefOf(found.id) : undefined;
}

/** The id of a vault known only by name (not listed): the subscription's collection of vaults plus its name. */
function unlistedVaultId(subscriptionId: string, vault: string): string {
  return `${subscriptionVaultsPath(subscriptionId)}/${vault}`;
}

function unlistedVaultRef(id: string): { subscriptionId: string; vault: string } | undefined {
  const m = /^\/subscriptions\/([^/]+)\/providers\/Microsoft\.KeyVault\/vaults\/([^/]+)$/i.exec(id);
  return m ? { subscriptionId: m[1], vault: m[2] } : undefined;
}

export interface KeyCustodyState {
  id: string;
  /** The inputs, the object the API returned under the kind's output (or `readError`), and what the read placed (`resourceGroup`). */
  outs: Record<string, unknown>;
}

/** Checks a key-custody data source's inputs (data-source-inputs.ts): its state adds `readError` and `resourceGroup` to the output. */
export function checkKeyCustodyInputs(
  kind: KeyCustodySourceKind,
  news: Record<string, unknown>,
  isUnknown?: (v: unknown) => boolean,
): InputFailure[] {
  const spec = KEY_CUSTODY_SOURCES[kind];
  return checkDataSourceInputSpec({ ...spec, outputs: [spec.output, "readError", "resourceGroup"] }, news, isUnknown);
}

/** Reads a key-custody data source: one GET (after the shared listing, for a vault or key). */
export async function readKeyCustodySource(
  clients: KeyCustodyClients,
  kind: KeyCustodySourceKind,
  inputs: Record<string, unknown>,
): Promise<KeyCustodyState> {
  const spec = KEY_CUSTODY_SOURCES[kind];
  const i = inputsOf(spec, inputs);
  const r = await spec.read(clients, i);
  return {
    id: r.id,
    outs: { ...i, ...r.extra, ...(r.value ? { [spec.output]: r.value } : {}), ...(r.readError ? { readError: r.readError } : {}) },
  };
}

/**
 * A refresh (or a lookup by id when `props` lacks the inputs): reads again and returns the inputs
 * apart from the data. A resource that is gone stays, with its `readError`: a protector's key that
 * was deleted is exactly what the key rules must see.
 */
export async function refreshKeyCustodySource(
  clients: KeyCustodyClients,
  kind: KeyCustodySourceKind,
  id: string,
  props: Record<string, unknown> | undefined,
): Promise<{ id: string; props: Record<string, unknown>; inputs: Record<string, unknown> }> {
  const spec = KEY_CUSTODY_SOURCES[kind];
  const hasInputs = props && spec.inputs.every((k) => typeof props[k] === "string" && props[k]);
  const inputs = hasInputs ? props : spec.inputsFromId(id);
  if (!inputs) throw new Error(`"${id}" is not an id of a ${kind.split(":")[1]} data source`);
  const state = await readKeyCustodySource(clients, kind, inputs);
  return { id: state.id, props: state.outs, inputs: inputsOf(spec, inputs) };
}

/** Whether two reads differ in what the API said (the time of a failed read aside). */
export function keyCustodyChanged(kind: KeyCustodySourceKind, olds: Record<string, unknown>, fresh: Record<string, unknown>): boolean {
  const output = KEY_CUSTODY_SOURCES[kind].output;
  const data = (o: Record<string, unknown>) => {
    const { readAt: _at, requestId: _id, ...failure } = (o.readError ?? {}) as Record<string, unknown>;
    return stableJson({ value: o[output], failure, resourceGroup: o.resourceGroup });
  };
  return data(olds) !== data(fresh);
}

function inputsOf(spec: KeyCustodySpec, from: Record<string, unknown>): Inputs {
  const out: Inputs = {};
  for (const k of spec.inputs) {
    const v = from[k];
    if (typeof v !== "string" || !v) throw new Error(`${k} is required`);
    out[k] = v;
  }
  for (const k of spec.optional ?? []) if (typeof from[k] === "string" && from[k]) out[k] = from[k] as string;
  return out;
}

function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : x,
  );
}
