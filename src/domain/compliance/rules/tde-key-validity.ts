import { azurePolicy, CIS_AZURE_1_5_0 } from "../control";
import { UNKNOWN } from "../../../platform/unknown-value";
import type { ComplianceFacts, FactMap } from "../../facts/model/compliance-facts";
import type { Finding } from "../finding";
import { dayOf, isCustomerManaged, keyOf, readFailureText, serverLabel, vaultOf } from "../key-custody-facts";
import { defineRule, findingBase, type ResolvedSettings } from "../rule";

type ProtectorFacts = FactMap["tdeProtectors"];
type ProtectorKeyFacts = FactMap["protectorKeys"];

interface KeyValiditySettings {
  minDaysToExpiry: number;
}

const DAY_S = 86_400;
/** The key types and sizes Azure SQL accepts as a TDE protector. */
const KEY_TYPES = ["RSA", "RSA-HSM"];
const KEY_SIZES = [2048, 3072];

/**
 * Flags a SQL server whose customer-managed TDE protector key cannot serve: disabled, not yet
 * active (`nbf` in the future), expired, expiring within `minDaysToExpiry` days, or not an RSA or
 * RSA-HSM key of 2048 or 3072 bits. Microsoft's requirements for a TDE protector in Key Vault
 * ("Transparent data encryption with customer-managed key: requirements for configuring the TDE
 * protector", learn.microsoft.com/azure/azure-sql/database/transparent-data-encryption-byok-overview):
 * RSA or RSA-HSM, 2048 or 3072 bits, enabled, activation date in the past, expiration date (if set)
 * in the future; a disabled or expired protector makes the server's databases inaccessible.
 * A key that cannot be read is a failure that says so, never a pass.
 *
 * Controls (sources):
 * - CIS Microsoft Azure Foundations Benchmark v1.5.0, 4.1.3 "Ensure SQL server's Transparent Data
 *   Encryption (TDE) protector is encrypted with Customer-managed key" (https://www.cisecurity.org/benchmark/azure);
 * - Azure Policy built-ins (github.com/Azure/azure-policy, built-in-policies/policyDefinitions/Key Vault/):
 *   5ff38825-c5d8-47c5-b70e-069a21955146 "Keys should have more than the specified number of days
 *   before expiration" 1.0.1 (Keys_Expiry_ByDays.json), 82067dbb-e53b-4e06-b631-546d197452d9 "Keys
 *   using RSA cryptography should have a specified minimum key size" 1.0.1 (Keys_RSA_MinimumKeySize.json),
 *   75c4f823-d65c-4f29-a733-01d0077fdbcb "Keys should be the specified cryptographic type RSA or EC"
 *   1.0.1 (Keys_AllowedKeyTypes.json).
 */
export const tdeKeyValidity = defineRule<KeyValiditySettings>({
  id: "tde-key-validity",
  title: "A customer-managed TDE protector key must be enabled, active, not near expiry, and RSA/RSA-HSM 2048 or 3072",
  description:
    "Flags a SQL server whose customer-managed TDE protector key is disabled, not yet active, expired, expiring within minDaysToExpiry days, or not an RSA or RSA-HSM key of 2048 or 3072 bits, and one whose key cannot be read (403, 404). A key whose vault cannot be read is left to tde-key-vault-recoverable, which reports it.",
  help: "Rotate the protector to a new version (or key) that is enabled, active, RSA or RSA-HSM of 2048 or 3072 bits, with an expiry well ahead (a rotation policy, with the server's auto rotation, does this); set minDaysToExpiry under stackwarden:policies to warn earlier or later.",
  defaultLevel: "mandatory",
  facts: ["tdeProtectors", "keyVaults", "protectorKeys"],
  settings: {
    minDaysToExpiry: {
      type: "integer",
      minimum: 0,
      default: 30,
      description:
        "optional, default 30 (days): a key that expires sooner than this is flagged, so it is rotated before the databases lose it",
    },
  },
  packScope: "stack",
  drift: "keyCustody",
  controls: [
    {
      ...CIS_AZURE_1_5_0,
      id: "4.1.3",
      title: "Ensure SQL server's Transparent Data Encryption (TDE) protector is encrypted with Customer-managed key",
    },
    azurePolicy(
      "5ff38825-c5d8-47c5-b70e-069a21955146",
      "Keys should have more than the specified number of days before expiration",
      "1.0.1",
      "Key%20Vault/Keys_Expiry_ByDays.json",
    ),
    azurePolicy(
      "82067dbb-e53b-4e06-b631-546d197452d9",
      "Keys using RSA cryptography should have a specified minimum key size",
      "1.0.1",
      "Key%20Vault/Keys_RSA_MinimumKeySize.json",
    ),
    azurePolicy(
      "75c4f823-d65c-4f29-a733-01d0077fdbcb",
      "Keys should be the specified cryptographic type RSA or EC",
      "1.0.1",
      "Key%20Vault/Keys_AllowedKeyTypes.json",
    ),
  ],
  evaluate: (facts, settings, now) => facts.tdeProtectors.map((p) => judge(p, facts, settings, now)),
});

function judge(p: ProtectorFacts, facts: ComplianceFacts, settings: ResolvedSettings<KeyValiditySettings>, now: number): Finding {
  const label = serverLabel(p);
  const base = findingBase(tdeKeyValidity, p, p.id, label, settings.enforcementLevel);
  const na = (message: string): Finding => ({ ...base, verdict: "not-applicable", message });
  if (p.readFailure) return na("the TDE protector could not be read, so its key is not known (sql-tde-customer-managed-key reports it)");
  if (p.serverKeyType === UNKNOWN) return { ...base, verdict: "unknown", message: "the TDE protector is not known until it is read" };
  if (!isCustomerManaged(p)) return na("the TDE protector is not a customer-managed key: Azure holds and rotates it");
  if (!p.key) {
    return {
      ...base,
      verdict: "fail",
      message: `The TDE protector of SQL server ${label} must name a Key Vault key; its key URI is ${p.keyUri ? `'${p.keyUri}', which is not a key identifier` : "missing"}`,
    };
  }
  if (p.key.managedHsm) return na(`the TDE protector's key is in a Managed HSM (${p.keyUri}), which this rule does not read`);
  const name = `${p.key.vaultName}/${p.key.keyName}${p.key.version ? `/${p.key.version}` : ""}`;
  const key = keyOf(facts.protectorKeys, p);
  if (!key || key.pending) return { ...base, verdict: "unknown", message: `the key ${name} has not been read yet` };
  const properties = { keyUri: p.keyUri ?? "", ...(key.id ? { keyId: key.id } : {}) };
  if (key.readFailure) {
    if (vaultOf(facts.keyVaults, p)?.readFailure)
      return na(`its vault ${p.key.vaultName} could not be read, so neither could the key (tde-key-vault-recoverable reports it)`);
    return {
      ...base,
      verdict: "fail",
      message: `The TDE protector key ${name} of SQL server ${label} must be readable to be judged; ${readFailureText(key.readFailure)}`,
      properties: { ...properties, readStatus: key.readFailure.status ?? 0, readCode: key.readFailure.code },
    };
  }
  const problems = keyProblems(key, settings.minDaysToExpiry, now);
  const facets = { ...properties, ...(key.kty ? { kty: key.kty } : {}), ...(key.keySize ? { keySize: key.keySize } : {}) };
  if (problems.length === 0) return { ...base, verdict: "pass", message: `the key ${name} is ${describe(key, now)}`, properties: facets };
  return {
    ...base,
    verdict: "fail",
    message: `The TDE protector key ${name} of SQL server ${label} must be enabled, active, more than ${settings.minDaysToExpiry} days from expiry, and RSA or RSA-HSM of 2048 or 3072 bits; ${problems.join("; ")}`,
    properties: { ...facets, problems: problems },
  };
}

/** What keeps the key from serving as a TDE protector, in words; none when it can. */
export function keyProblems(key: ProtectorKeyFacts, minDaysToExpiry: number, now: number): string[] {
  const nowS = now / 1000;
  const out: string[] = [];
  if (key.enabled === false) out.push("it is disabled");
  if (key.notBefore !== undefined && key.notBefore > nowS) out.push(`it is not active until ${dayOf(key.notBefore)}`);
  if (key.expires !== undefined) {
    const days = Math.floor((key.expires - nowS) / DAY_S);
    if (key.expires <= nowS) out.push(`it expired on ${dayOf(key.expires)}`);
    else if (key.expires - nowS < minDaysToExpiry * DAY_S)
      out.push(`it expires on ${dayOf(key.expires)}, in ${days} day${days === 1 ? "" : "s"}`);
  }
  const kty = (key.kty ?? "").toUpperCase();
  if (!KEY_TYPES.includes(kty)) {
    const curve = key.curveName ? ` ${key.curveName}` : key.keySize ? ` ${key.keySize} bits` : "";
    out.push(`it is ${key.kty ? `an ${key.kty}${curve} key` : "a key of unreported type"}, not RSA or RSA-HSM`);
  } else if (!KEY_SIZES.includes(key.keySize ?? 0)) {
    out.push(`it is ${key.kty} of ${key.keySize ? `${key.keySize} bits` : "an unreported size"}, not 2048 or 3072`);
  }
  return out;
}

function describe(key: ProtectorKeyFacts, now: number): string {
  const since = key.notBefore !== undefined ? `, active since ${dayOf(key.notBefore)}` : "";
  const until =
    key.expires !== undefined
      ? `, expires on ${dayOf(key.expires)} (in ${Math.floor((key.expires - now / 1000) / DAY_S)} days)`
      : ", does not expire";
  return `${key.kty} ${key.keySize} bits, enabled${since}${until}`;
}
