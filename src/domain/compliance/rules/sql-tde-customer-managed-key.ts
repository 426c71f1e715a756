import { azurePolicy, CIS_AZURE_2_0_0 } from "../control";
import { UNKNOWN } from "../../../platform/unknown-value";
import type { FactMap } from "../../facts/model/compliance-facts";
import type { Finding } from "../finding";
import { isCustomerManaged, readFailureText, holderOf, serverLabel, KEY_CUSTODY_DRIFT } from "../key-custody-facts";
import { defineRule, findingBase, type ResolvedSettings } from "../rule";

type ProtectorFacts = FactMap["tdeProtectors"];

/**
 * Flags a SQL server whose TDE protector is service-managed: Azure, not the customer, holds the key
 * that protects its databases' encryption keys. Advisory by default, as Azure Policy's own default
 * effect is Audit; `mandatory` under `stackwarden:policies` where the organisation requires
 * customer-managed keys.
 *
 * Controls (sources):
 * - CIS Microsoft Azure Foundations Benchmark v2.0.0, recommendation 4.1.3 "Ensure SQL server's
 *   Transparent Data Encryption (TDE) protector is encrypted with Customer-managed key" (section 4.1,
 *   SQL Server - Auditing; Center for Internet Security, https://www.cisecurity.org/benchmark/azure);
 * - Azure Policy built-in definition 0a370ff3-6cab-4e85-8995-295fd854c5b8 "SQL servers should use
 *   customer-managed keys to encrypt data at rest", version 2.0.1, default effect Audit
 *   (github.com/Azure/azure-policy, built-in-policies/policyDefinitions/SQL/SqlServer_EnsureServerTDEisEncryptedWithYourOwnKey_Deny.json):
 *   it checks that the server's encryption protector's `serverKeyType` is `AzureKeyVault`.
 */
export const sqlTdeCustomerManagedKey = defineRule<Record<string, never>>({
  id: "sql-tde-customer-managed-key",
  title: "SQL servers should protect TDE with a customer-managed key in Azure Key Vault",
  description:
    "Flags a SQL server (or a stack database with its own TDE protector, judged on its own key) (one of the stack's databases is on it) whose transparent data encryption protector is service-managed (serverKeyType ServiceManaged) rather than a customer-managed key in Azure Key Vault (AzureKeyVault), and a server whose protector cannot be read (a 403 or 404 is reported, never passed).",
  help: "Create an RSA or RSA-HSM key (2048 or 3072 bits) in a vault with soft delete and purge protection, grant the server's identity get, wrapKey and unwrapKey on it, add it as a server key and make it the TDE protector (az sql server tde-key set --server-key-type AzureKeyVault --kid <key id>). Or set this rule to advisory or disabled under stackwarden:policies.",
  defaultLevel: "advisory",
  facts: ["tdeProtectors"],
  settings: {},
  packScope: "stack",
  drift: KEY_CUSTODY_DRIFT,
  controls: [
    {
      ...CIS_AZURE_2_0_0,
      id: "4.1.3",
      title: "Ensure SQL server's Transparent Data Encryption (TDE) protector is encrypted with Customer-managed key",
    },
    azurePolicy(
      "0a370ff3-6cab-4e85-8995-295fd854c5b8",
      "SQL servers should use customer-managed keys to encrypt data at rest",
      "2.0.1",
      "SQL/SqlServer_EnsureServerTDEisEncryptedWithYourOwnKey_Deny.json",
    ),
  ],
  evaluate: (facts, settings) => facts.tdeProtectors.map((p) => judge(p, settings)),
});

function judge(p: ProtectorFacts, settings: ResolvedSettings): Finding {
  const label = serverLabel(p);
  const base = findingBase(sqlTdeCustomerManagedKey, p, p.id, label, settings.enforcementLevel);
  if (p.readFailure) {
    return {
      ...base,
      verdict: "fail",
      message: `The TDE protector of ${holderOf(p)} must be readable to show who holds its key; ${readFailureText(p.readFailure)}`,
      properties: { readStatus: p.readFailure.status ?? 0, readCode: p.readFailure.code },
    };
  }
  if (p.serverKeyType === UNKNOWN) return { ...base, verdict: "unknown", message: "the TDE protector is not known until it is read" };
  if (isCustomerManaged(p)) {
    return {
      ...base,
      verdict: "pass",
      message: `the TDE protector is the customer-managed key ${p.keyUri ?? p.serverKeyName ?? "(not named)"}`,
      properties: { serverKeyType: String(p.serverKeyType), ...(p.keyUri ? { keyUri: p.keyUri } : {}) },
    };
  }
  const what =
    p.serverKeyType === undefined
      ? "the server does not report its TDE protector's key type"
      : p.serverKeyType.toLowerCase() === "servicemanaged"
        ? "its TDE protector is service-managed (ServiceManaged)"
        : `its TDE protector's key type is ${p.serverKeyType}`;
  return {
    ...base,
    verdict: "fail",
    message: `${holderOf(p)} must protect transparent data encryption with a customer-managed key in Azure Key Vault; ${what}`,
    properties: { serverKeyType: p.serverKeyType ?? "" },
  };
}
