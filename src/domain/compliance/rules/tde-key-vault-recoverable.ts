import { azurePolicy, CIS_AZURE_2_0_0, IN_MANAGED_HSM, IN_VAULT } from "../control";
import { UNKNOWN } from "../../../platform/unknown-value";
import type { ComplianceFacts, FactMap } from "../../facts/model/compliance-facts";
import type { Finding } from "../finding";
import {
  containerNoun,
  holderOf,
  isCustomerManaged,
  readFailureText,
  serverLabel,
  vaultLabel,
  vaultOf,
  KEY_CUSTODY_DRIFT,
  NOT_READ,
  SERVICE_MANAGED,
} from "../key-custody-facts";
import { defineRule, findingBase, type ResolvedSettings } from "../rule";

type ProtectorFacts = FactMap["tdeProtectors"];

/**
 * Flags a SQL server whose customer-managed TDE protector lives in a Key Vault without soft delete
 * or without purge protection: a deleted (or purged) key makes every database on the server refuse
 * connections within minutes, and without both settings the key cannot be brought back. Microsoft's
 * guidance for customer-managed TDE requires both ("Transparent data encryption with customer-managed
 * key: requirements", learn.microsoft.com/azure/azure-sql/database/transparent-data-encryption-byok-overview).
 * A key in a Managed HSM is judged on the HSM the same way (soft delete is always on there; purge
 * protection is the HSM's choice). A vault or HSM that cannot be read is a failure that says so,
 * never a pass.
 *
 * Controls (sources):
 * - CIS Microsoft Azure Foundations Benchmark v2.0.0, 8.5 "Ensure the Key Vault is Recoverable"
 *   (https://www.cisecurity.org/benchmark/azure; see CIS_AZURE_2_0_0 for how the number was confirmed).
 *   Not 4.1.3: Azure Policy checks 4.1.3 on the protector's key type alone, so a server whose vault
 *   lost purge protection still meets 4.1.3 (sql-tde-customer-managed-key gives that evidence);
 * - Azure Policy built-in 0b60c0b2-2dc2-4e1c-b5c9-abbed971de53 "Key vaults should have deletion
 *   protection enabled", version 2.1.0 (github.com/Azure/azure-policy,
 *   built-in-policies/policyDefinitions/Key Vault/Recoverable_Audit.json), and
 *   1e66c121-a66a-4b1f-9b83-0fd99bf0fc2d "Key vaults should have soft delete enabled", version 3.1.0
 *   (…/Key Vault/SoftDeleteMustBeEnabled_Audit.json), which, as this rule does, count an absent
 *   `enableSoftDelete` as off; and, for a Managed HSM, c39ba22d-4428-4149-b981-70acb31fc383
 *   "Azure Key Vault Managed HSM should have purge protection enabled", version 1.0.0
 *   (…/Key Vault/ManagedHsm_Recoverable_Audit.json, read at commit
 *   3c5ceb50f5b131bbedda125520b03f16899a9fb0), which flags an HSM whose `enableSoftDelete` or
 *   `enablePurgeProtection` is not true.
 */
export const tdeKeyVaultRecoverable = defineRule<Record<string, never>>({
  id: "tde-key-vault-recoverable",
  title: "The Key Vault (or Managed HSM) of a customer-managed TDE protector must have soft delete and purge protection",
  description:
    "Flags a SQL server (or a stack database with its own TDE protector, judged on its own key) whose customer-managed TDE protector is in a Key Vault or Managed HSM without soft delete or without purge protection (a setting Azure does not report counts as off), and one whose vault or HSM cannot be read (not listed for this identity, 403 or 404). Servers with a service-managed protector are not applicable.",
  help: "Turn on purge protection (az keyvault update --name <vault> --enable-purge-protection true, or az keyvault update-hsm --hsm-name <hsm> --enable-purge-protection true; it cannot be turned off again) and soft delete on the vault or HSM that holds the TDE protector; grant the identity that runs stackwarden Reader on it so it can be checked.",
  defaultLevel: "mandatory",
  facts: ["tdeProtectors", "keyVaults"],
  settings: {},
  packScope: "stack",
  drift: KEY_CUSTODY_DRIFT,
  controls: [
    // The vault's controls concern findings about a vault, the HSM's about an HSM (Control.onlyWhere).
    { ...CIS_AZURE_2_0_0, id: "8.5", title: "Ensure the Key Vault is Recoverable", ...IN_VAULT },
    {
      ...azurePolicy(
        "0b60c0b2-2dc2-4e1c-b5c9-abbed971de53",
        "Key vaults should have deletion protection enabled",
        "2.1.0",
        "Key%20Vault/Recoverable_Audit.json",
      ),
      ...IN_VAULT,
    },
    {
      ...azurePolicy(
        "1e66c121-a66a-4b1f-9b83-0fd99bf0fc2d",
        "Key vaults should have soft delete enabled",
        "3.1.0",
        "Key%20Vault/SoftDeleteMustBeEnabled_Audit.json",
      ),
      ...IN_VAULT,
    },
    {
      ...azurePolicy(
        "c39ba22d-4428-4149-b981-70acb31fc383",
        "Azure Key Vault Managed HSM should have purge protection enabled",
        "1.0.0",
        "Key%20Vault/ManagedHsm_Recoverable_Audit.json",
      ),
      ...IN_MANAGED_HSM,
    },
  ],
  evaluate: (facts, settings) => facts.tdeProtectors.map((p) => judge(p, facts, settings)),
});

function judge(p: ProtectorFacts, facts: ComplianceFacts, settings: ResolvedSettings): Finding {
  const label = serverLabel(p);
  const base = findingBase(tdeKeyVaultRecoverable, p, p.id, label, settings.enforcementLevel);
  const na = (message: string, absent?: string): Finding => ({
    ...base,
    verdict: "not-applicable",
    message,
    ...(absent ? { absent } : {}),
  });
  if (p.readFailure)
    return na("the TDE protector could not be read, so its vault is not known (sql-tde-customer-managed-key reports it)", NOT_READ);
  if (p.serverKeyType === UNKNOWN) return { ...base, verdict: "unknown", message: "the TDE protector is not known until it is read" };
  if (!isCustomerManaged(p))
    return na("the TDE protector is not a customer-managed key: Azure holds it, there is no vault to judge", SERVICE_MANAGED);
  if (!p.key) return na(`the TDE protector names no Key Vault key whose vault could be found (${p.keyUri ?? "no key URI"})`);
  const vault = vaultOf(facts.keyVaults, p);
  const holder = p.key.managedHsm ? "Managed HSM" : "vault";
  if (!vault || vault.pending) return { ...base, verdict: "unknown", message: `the ${holder} ${p.key.vaultName} has not been read yet` };
  const noun = containerNoun(vault);
  // `container` says which controls the finding is evidence for: a vault's, or a Managed HSM's (Control.onlyWhere).
  const hsm: Record<string, string> =
    vault.kind === "managedHsm" && vault.provisioningState ? { provisioningState: vault.provisioningState } : {};
  const properties = { vault: vault.id ?? vault.name, keyUri: p.keyUri ?? "", container: vault.kind ?? "vault", ...hsm };
  if (vault.readFailure) {
    return {
      ...base,
      verdict: "fail",
      message: `The ${noun} ${vaultLabel(vault)} holding the TDE protector of ${holderOf(p)} must be readable to show it is recoverable; ${readFailureText(vault.readFailure)}`,
      properties: { ...properties, readStatus: vault.readFailure.status ?? 0, readCode: vault.readFailure.code },
    };
  }
  if (vault.enableSoftDelete && vault.enablePurgeProtection) {
    const retention = vault.softDeleteRetentionInDays ? ` (${vault.softDeleteRetentionInDays} days' retention)` : "";
    return {
      ...base,
      verdict: "pass",
      message: `${noun} ${vaultLabel(vault)} has soft delete${retention} and purge protection`,
      properties,
    };
  }
  const missing = [!vault.enableSoftDelete ? "soft delete is off" : "", !vault.enablePurgeProtection ? "purge protection is off" : ""]
    .filter(Boolean)
    .join(" and ");
  return {
    ...base,
    verdict: "fail",
    message: `${noun} ${vaultLabel(vault)}, which holds the TDE protector of ${holderOf(p)}, must have soft delete and purge protection enabled; ${missing}`,
    properties: { ...properties, enableSoftDelete: vault.enableSoftDelete, enablePurgeProtection: vault.enablePurgeProtection },
  };
}
