import type { Maybe } from "../../../platform/unknown-value";
import type { Key } from "../../../services/keyvault/types";
import type { ManagedHsm } from "../../../services/keyvault/managed-hsm-types";
import type { Vault } from "../../../services/keyvault/types";
import type { ProtectorKeyRef } from "../key-custody-reads";
import type { KeyContainerKind } from "../key-vaults";
import type { ManagedIdentity } from "../managed-identity";

/** What a name the program leaves to another resource's output is, while the engine does not know it (a preview). */
export const NOT_KNOWN_YET = "(known after apply)";

/** A SQL server as the program names it: subscription, resource group and name (NOT_KNOWN_YET where unknown). */
export interface PlannedServerRef {
  subscriptionId: string;
  resourceGroup: string;
  server: string;
}

/** A database's TDE as the program sets it: `Enabled`, `Disabled`, UNKNOWN at preview when it flows from elsewhere. */
export interface PlannedTde extends PlannedServerRef {
  database: string;
  state: Maybe<string | undefined>;
  /** The URN of the resource that sets it: where its finding is reported. */
  origin?: string;
}

/** A SQL server the program creates, and the identity it will reach its key with (UNKNOWN until Azure gives it a principal). */
export interface PlannedServer extends PlannedServerRef {
  identity: Maybe<ManagedIdentity>;
  origin?: string;
}

/** A server's TDE protector as the program sets it: the key type, and the key when customer-managed (undefined key with a known `AzureKeyVault`: it names none). */
export interface PlannedProtector extends PlannedServerRef {
  serverKeyType: Maybe<string | undefined>;
  serverKeyName?: string;
  key?: ProtectorKeyRef;
  keyUri?: string;
  autoRotationEnabled?: boolean;
  origin?: string;
}

/**
 * A Key Vault or Managed HSM the program creates, in the shape Resource Manager answers (so its
 * facts are built as a read one's are); `resource` UNKNOWN while its recoverability settings are not
 * known, `accessUnknown` while who may use its keys (access policies, firewall) is not.
 */
export interface PlannedVault {
  kind: KeyContainerKind;
  /** Lower-cased, as a key URI's host names it. */
  name: string;
  resource: Maybe<Vault | ManagedHsm>;
  accessUnknown?: boolean;
  origin?: string;
}

/** A key the program creates, in the shape Resource Manager answers (UNKNOWN while a judged property is not known). */
export interface PlannedKey {
  container: KeyContainerKind;
  vaultName: string;
  keyName: string;
  resource: Maybe<Key>;
  origin?: string;
}

/** A role assignment the program creates: to whom, at what scope, of which role (each UNKNOWN while it flows from elsewhere). */
export interface PlannedGrant {
  principalId: Maybe<string>;
  /** The scope's ARM id, or, when it is a vault of the program, that vault's name (`vault`). */
  scope: Maybe<string>;
  vault?: string;
  roleDefinitionId: Maybe<string>;
  conditional?: boolean;
  origin?: string;
}

/** What a program declares that the TDE and key-custody rules judge, in one provider-neutral shape. */
export interface ProgramEstate {
  databases: PlannedTde[];
  servers: PlannedServer[];
  protectors: PlannedProtector[];
  vaults: PlannedVault[];
  keys: PlannedKey[];
  grants: PlannedGrant[];
}

/** An estate with nothing in it. */
export function emptyEstate(): ProgramEstate {
  return { databases: [], servers: [], protectors: [], vaults: [], keys: [], grants: [] };
}
