import { azurePolicy, CIS_AZURE_2_0_0, IN_MANAGED_HSM, IN_VAULT } from "../control";
import { UNKNOWN } from "../../../platform/unknown-value";
import type { ComplianceFacts, FactMap } from "../../facts/model/compliance-facts";
import type { Finding } from "../finding";
import {
  dayOf,
  holderOf,
  isCustomerManaged,
  keyOf,
  readFailureText,
  serverLabel,
  vaultOf,
  KEY_CUSTODY_DRIFT,
  NOT_READ,
  SERVICE_MANAGED,
} from "../key-custody-facts";
import { ageDays, rotationPolicyText, rotationProblems, type KeyRotationSettings } from "../key-rotation";
import { defineRule, findingBase, type ResolvedSettings } from "../rule";

type ProtectorFacts = FactMap["tdeProtectors"];
type ProtectorKeyFacts = FactMap["protectorKeys"];

interface KeyValiditySettings extends KeyRotationSettings {
  minDaysToExpiry: number;
  requireExpiry: boolean;
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
 * A key that cannot be read is a failure that says so, never a pass. A key in a Managed HSM is
 * judged the same way (Microsoft's page allows an RSA key in a Managed HSM as TDE protector, with
 * the same requirements); its attributes are read through the HSM's management plane.
 *
 * Beyond what Azure SQL needs, what the benchmarks ask of a key (issue 33): `requireExpiry` (default
 * on) flags a key without an expiration date; `requireAutoRotation` (default off) flags a server that
 * does not follow its key's newest version by itself (the protector's `autoRotationEnabled`, read at
 * 2021-11-01); `maxKeyAgeDays` (default 0, off) flags a key version in use longer than that (its
 * `attributes.created`) unless the server rotates automatically. A setting that needs a fact Azure
 * does not report (no `autoRotationEnabled`, no `created`) fails and says so.
 *
 * Controls (sources; the settings that give the evidence are named):
 * - CIS Microsoft Azure Foundations Benchmark v2.0.0 (see CIS_AZURE_2_0_0), with `requireExpiry`:
 *   8.1 "Ensure that the Expiration Date is set for all Keys in RBAC Key Vaults" and 8.2 "Ensure that
 *   the Expiration Date is set for all Keys in Non-RBAC Key Vaults." (https://www.cisecurity.org/benchmark/azure);
 * - Azure Policy built-ins (github.com/Azure/azure-policy, built-in-policies/policyDefinitions/Key Vault/):
 *   152b15f7-8e1f-4c1f-ab71-8c010ba5dbc0 "Key Vault keys should have an expiration date" 1.0.2
 *   (Keys_ExpirationSet.json; `requireExpiry`; Azure's CIS v2.0.0 initiative files it under 8.1 and
 *   8.2), d8cf8476-a2ec-4916-896e-992351803c44 "Keys should have a rotation policy ensuring that their
 *   rotation is scheduled within the specified number of days after creation." 1.0.0
 *   (Keys_KeyRotationPolicy_MaximumDaysToRotate.json; `maxKeyAgeDays` is its `maximumDaysToRotate`
 *   judged on the version in use: evidence only when set, and a pass there means the version is young
 *   enough or the server rotates it, not that the key's policy schedules it; the policy is reported),
 *   5ff38825-c5d8-47c5-b70e-069a21955146 "Keys should have more than the specified number of days
 *   before expiration" 1.0.1 (Keys_Expiry_ByDays.json), 82067dbb-e53b-4e06-b631-546d197452d9 "Keys
 *   using RSA cryptography should have a specified minimum key size" 1.0.1 (Keys_RSA_MinimumKeySize.json),
 *   75c4f823-d65c-4f29-a733-01d0077fdbcb "Keys should be the specified cryptographic type RSA or EC"
 *   1.0.1 (Keys_AllowedKeyTypes.json). These, and CIS 8.1 and 8.2, concern keys in Key Vault vaults
 *   (their findings carry `container: vault`);
 * - for a key in a Managed HSM (`container: managedHsm`), the Managed HSM data plane's preview
 *   definitions (…/Key Vault/, read in 2026): 1d478a74-21ba-4b9f-9d8f-8e6fced0eec5 "[Preview]: Azure
 *   Key Vault Managed HSM keys should have an expiration date" 1.0.0-preview (ManagedHsm_Keys_ExpirationSet.json,
 *   commit 04a62e1558e865fde1e561a7df850ccc7f8f1c1f; `requireExpiry`), ad27588c-0198-4c84-81ef-08efd0274653
 *   "[Preview]: Azure Key Vault Managed HSM Keys should have more than the specified number of days
 *   before expiration" 1.0.0-preview (ManagedHsm_Keys_Expiry_ByDays.json, commit
 *   58fcf068ecb5e96d23958d9799cf872e687a1a4a), 86810a98-8e91-4a44-8386-ec66d0de5d57 "[Preview]: Azure
 *   Key Vault Managed HSM keys using RSA cryptography should have a specified minimum key size"
 *   1.0.0-preview (ManagedHsm_Keys_RSA_MinimumKeySize.json, commit 6123c803dec00310e7f15975156b7d5fd3de57d5).
 */
export const tdeKeyValidity = defineRule<KeyValiditySettings>({
  id: "tde-key-validity",
  title: "A customer-managed TDE protector key must be enabled, active, not near expiry, and RSA/RSA-HSM 2048 or 3072",
  description:
    "Flags a SQL server (or a stack database with its own TDE protector, judged on its own key) whose customer-managed TDE protector key (in a Key Vault or a Managed HSM) is disabled, not yet active, expired, expiring within minDaysToExpiry days, without an expiration date (requireExpiry), not an RSA or RSA-HSM key of 2048 or 3072 bits, not rotated automatically by its server (requireAutoRotation), or older than maxKeyAgeDays while its server does not rotate it, and one whose key cannot be read (403, 404). A key whose vault or HSM cannot be read is left to tde-key-vault-recoverable, which reports it.",
  help: "Rotate the protector to a new version (or key) that is enabled, active, RSA or RSA-HSM of 2048 or 3072 bits, with an expiry well ahead (a rotation policy, with the server's auto rotation, does this: az keyvault key rotation-policy update, then az sql server tde-key set --auto-rotation-enabled true); set minDaysToExpiry, requireExpiry, requireAutoRotation and maxKeyAgeDays under stackwarden:policies.",
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
    requireExpiry: {
      type: "boolean",
      default: true,
      description:
        "optional, default true: a key without an expiration date is flagged (CIS 2.0.0 8.1/8.2, Azure Policy 'Key Vault keys should have an expiration date')",
    },
    requireAutoRotation: {
      type: "boolean",
      default: false,
      description:
        "optional, default false: when true, a server whose TDE protector does not follow its key's newest version by itself (autoRotationEnabled) is flagged",
    },
    maxKeyAgeDays: {
      type: "integer",
      minimum: 0,
      default: 0,
      description:
        "optional, default 0 (off; days): a key version in use longer than this (since its creation) is flagged unless the server rotates its key automatically",
    },
  },
  packScope: "stack",
  drift: KEY_CUSTODY_DRIFT,
  controls: [
    { ...CIS_AZURE_2_0_0, id: "8.1", title: "Ensure that the Expiration Date is set for all Keys in RBAC Key Vaults", ...IN_VAULT },
    { ...CIS_AZURE_2_0_0, id: "8.2", title: "Ensure that the Expiration Date is set for all Keys in Non-RBAC Key Vaults.", ...IN_VAULT },
    {
      ...azurePolicy(
        "152b15f7-8e1f-4c1f-ab71-8c010ba5dbc0",
        "Key Vault keys should have an expiration date",
        "1.0.2",
        "Key%20Vault/Keys_ExpirationSet.json",
      ),
      ...IN_VAULT,
    },
    {
      ...azurePolicy(
        "d8cf8476-a2ec-4916-896e-992351803c44",
        "Keys should have a rotation policy ensuring that their rotation is scheduled within the specified number of days after creation.",
        "1.0.0",
        "Key%20Vault/Keys_KeyRotationPolicy_MaximumDaysToRotate.json",
      ),
      ...IN_VAULT,
    },
    {
      ...azurePolicy(
        "5ff38825-c5d8-47c5-b70e-069a21955146",
        "Keys should have more than the specified number of days before expiration",
        "1.0.1",
        "Key%20Vault/Keys_Expiry_ByDays.json",
      ),
      ...IN_VAULT,
    },
    {
      ...azurePolicy(
        "82067dbb-e53b-4e06-b631-546d197452d9",
        "Keys using RSA cryptography should have a specified minimum key size",
        "1.0.1",
        "Key%20Vault/Keys_RSA_MinimumKeySize.json",
      ),
      ...IN_VAULT,
    },
    {
      ...azurePolicy(
        "75c4f823-d65c-4f29-a733-01d0077fdbcb",
        "Keys should be the specified cryptographic type RSA or EC",
        "1.0.1",
        "Key%20Vault/Keys_AllowedKeyTypes.json",
      ),
      ...IN_VAULT,
    },
    // A key in a Managed HSM: Azure Policy's definitions of the Managed HSM data plane (preview).
    {
      ...azurePolicy(
        "1d478a74-21ba-4b9f-9d8f-8e6fced0eec5",
        "[Preview]: Azure Key Vault Managed HSM keys should have an expiration date",
        "1.0.0-preview",
        "Key%20Vault/ManagedHsm_Keys_ExpirationSet.json",
      ),
      ...IN_MANAGED_HSM,
    },
    {
      ...azurePolicy(
        "ad27588c-0198-4c84-81ef-08efd0274653",
        "[Preview]: Azure Key Vault Managed HSM Keys should have more than the specified number of days before expiration",
        "1.0.0-preview",
        "Key%20Vault/ManagedHsm_Keys_Expiry_ByDays.json",
      ),
      ...IN_MANAGED_HSM,
    },
    {
      ...azurePolicy(
        "86810a98-8e91-4a44-8386-ec66d0de5d57",
        "[Preview]: Azure Key Vault Managed HSM keys using RSA cryptography should have a specified minimum key size",
        "1.0.0-preview",
        "Key%20Vault/ManagedHsm_Keys_RSA_MinimumKeySize.json",
      ),
      ...IN_MANAGED_HSM,
    },
  ],
  evaluate: (facts, settings, now) => facts.tdeProtectors.map((p) => judge(p, facts, settings, now)),
});

function judge(p: ProtectorFacts, facts: ComplianceFacts, settings: ResolvedSettings<KeyValiditySettings>, now: number): Finding {
  const label = serverLabel(p);
  const base = findingBase(tdeKeyValidity, p, p.id, label, settings.enforcementLevel);
  const na = (message: string, absent?: string): Finding => ({
    ...base,
    verdict: "not-applicable",
    message,
    ...(absent ? { absent } : {}),
  });
  if (p.readFailure)
    return na("the TDE protector could not be read, so its key is not known (sql-tde-customer-managed-key reports it)", NOT_READ);
  if (p.serverKeyType === UNKNOWN) return { ...base, verdict: "unknown", message: "the TDE protector is not known until it is read" };
  if (!isCustomerManaged(p)) return na("the TDE protector is not a customer-managed key: Azure holds and rotates it", SERVICE_MANAGED);
  if (!p.key) {
    return {
      ...base,
      verdict: "fail",
      message: `The TDE protector of ${holderOf(p)} must name a Key Vault key; its key URI is ${p.keyUri ? `'${p.keyUri}', which is not a key identifier` : "missing"}`,
      properties: { container: "vault" },
    };
  }
  const name = `${p.key.vaultName}/${p.key.keyName}${p.key.version ? `/${p.key.version}` : ""}`;
  const key = keyOf(facts.protectorKeys, p);
  if (!key || key.pending) return { ...base, verdict: "unknown", message: `the key ${name} has not been read yet` };
  // Which controls the finding is evidence for: a vault key's, or a Managed HSM key's (Control.onlyWhere).
  const properties = { keyUri: p.keyUri ?? "", container: p.key.managedHsm ? "managedHsm" : "vault", ...(key.id ? { keyId: key.id } : {}) };
  if (key.readFailure) {
    if (vaultOf(facts.keyVaults, p)?.readFailure) {
      const holder = p.key.managedHsm ? "Managed HSM" : "vault";
      return na(`its ${holder} ${p.key.vaultName} could not be read, so neither could the key (tde-key-vault-recoverable reports it)`);
    }
    return {
      ...base,
      verdict: "fail",
      message: `The TDE protector key ${name} of ${holderOf(p)} must be readable to be judged; ${readFailureText(key.readFailure)}`,
      properties: { ...properties, readStatus: key.readFailure.status ?? 0, readCode: key.readFailure.code },
    };
  }
  const problems = [...keyProblems(key, settings, now), ...rotationProblems(p, key, settings, now)];
  const facets = {
    ...properties,
    ...keyFacets(key, now),
    ...(p.autoRotationEnabled !== undefined ? { autoRotationEnabled: p.autoRotationEnabled } : {}),
  };
  if (problems.length === 0)
    return { ...base, verdict: "pass", message: `the key ${name} is ${describe(p, key, settings, now)}`, properties: facets };
  return {
    ...base,
    verdict: "fail",
    message: `The TDE protector key ${name} of ${holderOf(p)} must be ${requirement(settings)}; ${problems.join("; ")}`,
    properties: { ...facets, problems: problems },
  };
}

/** What the key must be, as the settings say: `enabled, active, …, and RSA or RSA-HSM of 2048 or 3072 bits`. */
function requirement(settings: KeyValiditySettings): string {
  const parts = ["enabled", "active", `more than ${settings.minDaysToExpiry} days from expiry`, "RSA or RSA-HSM of 2048 or 3072 bits"];
  if (settings.requireAutoRotation) parts.push("rotated automatically by its server");
  if (settings.maxKeyAgeDays > 0) parts.push(`at most ${settings.maxKeyAgeDays} days old unless its server rotates it automatically`);
  return `${parts.slice(0, -1).join(", ")}, and ${parts[parts.length - 1]}`;
}

/** What keeps the key from serving as a TDE protector, in words; none when it can. */
export function keyProblems(
  key: ProtectorKeyFacts,
  settings: Pick<KeyValiditySettings, "minDaysToExpiry" | "requireExpiry">,
  now: number,
): string[] {
  const nowS = now / 1000;
  const out: string[] = [];
  if (key.enabled === false) out.push("it is disabled");
  if (key.notBefore !== undefined && key.notBefore > nowS) out.push(`it is not active until ${dayOf(key.notBefore)}`);
  if (key.expires !== undefined) {
    const days = Math.floor((key.expires - nowS) / DAY_S);
    if (key.expires <= nowS) out.push(`it expired on ${dayOf(key.expires)}`);
    else if (key.expires - nowS < settings.minDaysToExpiry * DAY_S)
      out.push(`it expires on ${dayOf(key.expires)}, in ${days} day${days === 1 ? "" : "s"}`);
  } else if (settings.requireExpiry) out.push("it has no expiration date");
  const kty = (key.kty ?? "").toUpperCase();
  if (!KEY_TYPES.includes(kty)) {
    const curve = key.curveName ? ` ${key.curveName}` : key.keySize ? ` ${key.keySize} bits` : "";
    out.push(`it is ${key.kty ? `an ${key.kty}${curve} key` : "a key of unreported type"}, not RSA or RSA-HSM`);
  } else if (!KEY_SIZES.includes(key.keySize ?? 0)) {
    out.push(`it is ${key.kty} of ${key.keySize ? `${key.keySize} bits` : "an unreported size"}, not 2048 or 3072`);
  }
  return out;
}

/** The key's facts a report carries beside the message: type and size, creation and age, rotation policy. */
function keyFacets(key: ProtectorKeyFacts, now: number): Record<string, string | number | string[]> {
  const age = ageDays(key, now);
  return {
    ...(key.kty ? { kty: key.kty } : {}),
    ...(key.keySize ? { keySize: key.keySize } : {}),
    ...(key.created !== undefined ? { keyCreated: new Date(key.created * 1000).toISOString() } : {}),
    ...(age !== undefined ? { keyAgeDays: age } : {}),
    ...(key.rotationPolicy ? { rotationPolicy: rotationPolicyText(key.rotationPolicy) } : {}),
  };
}

function describe(p: ProtectorFacts, key: ProtectorKeyFacts, settings: KeyValiditySettings, now: number): string {
  const since = key.notBefore !== undefined ? `, active since ${dayOf(key.notBefore)}` : "";
  const until =
    key.expires !== undefined
      ? `, expires on ${dayOf(key.expires)} (in ${Math.floor((key.expires - now / 1000) / DAY_S)} days)`
      : ", does not expire";
  // The rotation facts are told when a setting judged them, so a pass says why it passed.
  const age = ageDays(key, now);
  const created = settings.maxKeyAgeDays > 0 && age !== undefined ? `, created on ${dayOf(key.created!)} (${age} days ago)` : "";
  const rotation =
    settings.requireAutoRotation || settings.maxKeyAgeDays > 0
      ? p.autoRotationEnabled === true
        ? "; its server rotates it automatically"
        : "; its server does not rotate it automatically"
      : "";
  return `${key.kty} ${key.keySize} bits, enabled${since}${until}${created}${rotation}`;
}
