import { sqlDatabaseId, sqlServerId } from "../../../platform/arm/resource-id";
import { UNKNOWN } from "../../../platform/unknown-value";
import type { DatabaseFacts } from "../tde-status";
import type { ProtectorFacts } from "../tde-protectors";
import type { KeyVaultFacts } from "../key-vaults";
import type { ProtectorKeyFacts } from "../protector-keys";
import type { ProtectorKeyRef } from "../key-custody-reads";
import type { PlannedKey, PlannedServerRef, PlannedVault, ProgramEstate } from "./program-estate";

/** Each database's TDE as the program sets it: the status it will have (`desired`), on the resource that sets it. */
export function plannedDatabaseFacts(estate: ProgramEstate): DatabaseFacts[] {
  return estate.databases.map((d) => ({
    id: sqlDatabaseId(d),
    resourceGroup: d.resourceGroup,
    server: d.server,
    database: d.database,
    liveTdeStatus: d.state,
    tdeStatusSource: "desired",
    origin: d.origin,
  }));
}

const sameServer = (a: PlannedServerRef, b: PlannedServerRef) =>
  a.server.toLowerCase() === b.server.toLowerCase() && a.resourceGroup.toLowerCase() === b.resourceGroup.toLowerCase();

/**
 * Each protector the program sets, with the identity of its server when the program creates the
 * server (`identity` left out while it is unknown); `liveIdentity` says which servers it does not
 * create, whose identity is read live.
 */
export function plannedProtectorFacts(estate: ProgramEstate): { facts: ProtectorFacts; liveIdentity: boolean }[] {
  return estate.protectors.map((p) => {
    const server = estate.servers.find((s) => sameServer(s, p));
    const facts: ProtectorFacts = {
      id: sqlServerId(p),
      subscriptionId: p.subscriptionId,
      resourceGroup: p.resourceGroup,
      server: p.server,
      databases: estate.databases.filter((d) => sameServer(d, p)).map((d) => d.database),
      serverKeyType: p.serverKeyType,
      ...(p.serverKeyName ? { serverKeyName: p.serverKeyName } : {}),
      ...(p.keyUri ? { keyUri: p.keyUri } : {}),
      ...(p.key ? { key: p.key } : {}),
      ...(p.autoRotationEnabled !== undefined ? { autoRotationEnabled: p.autoRotationEnabled } : {}),
      ...(server && server.identity !== UNKNOWN ? { identity: server.identity } : {}),
      origin: p.origin,
    };
    return { facts, liveIdentity: !server };
  });
}

/** The customer-managed keys the program's protectors name, once each (by identity). */
export function plannedProtectorKeys(estate: ProgramEstate): ProtectorKeyRef[] {
  const keys = new Map<string, ProtectorKeyRef>();
  for (const p of estate.protectors)
    if (p.key && typeof p.serverKeyType === "string" && p.serverKeyType.toLowerCase() === "azurekeyvault") keys.set(p.key.identity, p.key);
  return [...keys.values()];
}

/** The vault (or HSM) of the program that holds a key, if the program creates it. */
export function plannedVaultOf(estate: ProgramEstate, key: ProtectorKeyRef): PlannedVault | undefined {
  const kind = key.managedHsm ? "managedHsm" : "vault";
  return estate.vaults.find((v) => v.kind === kind && v.name === key.vaultName.toLowerCase());
}

/** The program's Key resource a protector's key is, if the program creates it (its version is the one it will have). */
export function plannedKeyOf(estate: ProgramEstate, key: ProtectorKeyRef): PlannedKey | undefined {
  if (key.managedHsm) return undefined;
  return estate.keys.find((k) => k.vaultName === key.vaultName.toLowerCase() && k.keyName.toLowerCase() === key.keyName.toLowerCase());
}

/** A planned vault's facts, pending while its recoverability is unknown (built by the kind's own mapping, `build`). */
export function plannedVaultFacts(
  v: PlannedVault,
  subscriptionId: string,
  build: (
    name: string,
    subscriptionId: string,
    read: { vault: NonNullable<Exclude<PlannedVault["resource"], typeof UNKNOWN>> },
    kind: PlannedVault["kind"],
  ) => KeyVaultFacts,
): KeyVaultFacts {
  if (v.resource === UNKNOWN)
    return {
      kind: v.kind,
      name: v.name,
      subscriptionId,
      enableSoftDelete: false,
      enablePurgeProtection: false,
      pending: true,
      origin: v.origin,
    };
  return {
    ...build(v.name, subscriptionId, { vault: v.resource }, v.kind),
    ...(v.accessUnknown ? { accessUnknown: true } : {}),
    origin: v.origin,
  };
}

/** A planned key's facts under the identity its protector names, pending while a judged property is unknown. */
export function plannedKeyFacts(
  k: PlannedKey,
  ref: ProtectorKeyRef,
  build: (
    ref: { vaultName: string; keyName: string; version?: string; managedHsm?: boolean },
    read: { key: NonNullable<Exclude<PlannedKey["resource"], typeof UNKNOWN>> },
  ) => ProtectorKeyFacts,
): ProtectorKeyFacts {
  const keyRef = {
    vaultName: ref.vaultName,
    keyName: ref.keyName,
    ...(ref.version ? { version: ref.version } : {}),
    managedHsm: ref.managedHsm,
  };
  if (k.resource === UNKNOWN) return { ...build(keyRef, { key: { id: "" } }), pending: true, origin: k.origin };
  return { ...build(keyRef, { key: k.resource }), origin: k.origin };
}
