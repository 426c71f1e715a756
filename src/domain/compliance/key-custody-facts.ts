import type { FactMap } from "../facts/model/compliance-facts";
import { defineDriftSection } from "./drift-section";

type ProtectorFacts = FactMap["tdeProtectors"];
type KeyVaultFacts = FactMap["keyVaults"];
type ProtectorKeyFacts = FactMap["protectorKeys"];
type ReadFailure = NonNullable<ProtectorFacts["readFailure"]>;

/**
 * What the key-custody rules share: the section of drift's reports they fill, how a server, a read
 * failure and a date are named in their messages, and how a protector finds the facts of its vault
 * and key. Pure.
 */

/** Drift's section of the key-custody rules: a TDE protector, its vault or its key drifted from what the rules require. */
export const KEY_CUSTODY_DRIFT = defineDriftSection({ key: "keyCustody", heading: "Key custody" });

/** `rg/server`, or `rg/server/database` for a database's own protector. */
export function serverLabel(p: Pick<ProtectorFacts, "resourceGroup" | "server" | "database" | "level">): string {
  return p.level === "database" && p.database ? `${p.resourceGroup}/${p.server}/${p.database}` : `${p.resourceGroup}/${p.server}`;
}

/** What holds the protector, as messages name it: `SQL server rg/server`, or `database rg/server/database` (its own protector). */
export function holderOf(p: Pick<ProtectorFacts, "resourceGroup" | "server" | "database" | "level">): string {
  return `${p.level === "database" && p.database ? "database" : "SQL server"} ${serverLabel(p)}`;
}

/** `HTTP 403 AuthorizationFailed: <message>`, or the code alone when no request could be sent. */
export function readFailureText(f: ReadFailure): string {
  return `${f.status ? `HTTP ${f.status} ` : ""}${f.code}: ${f.message}`;
}

/** The protector's vault (or Managed HSM) facts (by its name and kind), if gathered. */
export function vaultOf(vaults: readonly KeyVaultFacts[], p: ProtectorFacts): KeyVaultFacts | undefined {
  const name = p.key?.vaultName.toLowerCase();
  const kind = p.key?.managedHsm ? "managedHsm" : "vault";
  return name === undefined ? undefined : vaults.find((v) => v.name === name && (v.kind ?? "vault") === kind);
}

/** `Key Vault` or `Managed HSM`: what holds a key, in messages. */
export function containerNoun(v: Pick<KeyVaultFacts, "kind">): string {
  return v.kind === "managedHsm" ? "Managed HSM" : "Key Vault";
}

/** The protector's key facts (by `vault/key[/version]`), if gathered. */
export function keyOf(keys: readonly ProtectorKeyFacts[], p: ProtectorFacts): ProtectorKeyFacts | undefined {
  const identity = p.key?.identity;
  return identity === undefined ? undefined : keys.find((k) => k.identity === identity);
}

/** `rg/vault` when the resource group is known, else the vault's name. */
export function vaultLabel(v: Pick<KeyVaultFacts, "name" | "resourceGroup">): string {
  return v.resourceGroup ? `${v.resourceGroup}/${v.name}` : v.name;
}

/** `YYYY-MM-DD` of a time in seconds since 1970 (Key Vault's `nbf` and `exp`). */
export function dayOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** Whether the protector is customer-managed (`AzureKeyVault`), compared as Azure's enums are: without regard to case. */
export function isCustomerManaged(p: Pick<ProtectorFacts, "serverKeyType">): boolean {
  return typeof p.serverKeyType === "string" && p.serverKeyType.toLowerCase() === "azurekeyvault";
}

/** What a key rule's not-applicable finding on a service-managed protector says is absent (reports count these in one line per rule). */
export const SERVICE_MANAGED = "service-managed TDE protector: no customer key to judge";

/** What a key rule's not-applicable finding on a protector that could not be read says is absent (sql-tde-customer-managed-key reports the read). */
export const NOT_READ = "TDE protector not read (the customer-managed key rule reports it)";
