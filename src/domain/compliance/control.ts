/**
 * A control of a published framework (a benchmark's recommendation, a policy definition) that a
 * rule gives evidence for: reports file findings under it (SARIF taxonomies, the per-control
 * summary of the JSON and Markdown reports), so an auditor can find the evidence for each control.
 */
export interface Control {
  /** The framework's name as its publisher writes it (`CIS Microsoft Azure Foundations Benchmark`, `Azure Policy`). */
  framework: string;
  /** The framework's (or, for a policy definition, the definition's) version. */
  version: string;
  /** The control's id within the framework (`4.1.3`; a policy definition's name, `0a370ff3-…`). */
  id: string;
  /** The control's title, as published. */
  title: string;
  /** Where it is published. */
  uri?: string;
  /**
   * Optional: the control concerns only the rule's findings whose `properties` have these values
   * (Azure Policy's Managed HSM definitions concern a key in a Managed HSM, `{ container: "managedHsm" }`;
   * its Key Vault definitions a key in a vault). The per-control tallies count only those. Absent:
   * every finding of the rule.
   */
  onlyWhere?: Readonly<Record<string, string>>;
}

/** Whether a control concerns a finding of its rule (`onlyWhere`, compared with the finding's properties). */
export function controlConcerns(c: Pick<Control, "onlyWhere">, properties: Readonly<Record<string, unknown>> | undefined): boolean {
  return !c.onlyWhere || Object.entries(c.onlyWhere).every(([k, v]) => properties?.[k] === v);
}

/** Where a key-custody control applies: to keys (and holders) in Key Vault vaults, or in Managed HSMs. */
export const IN_VAULT = { onlyWhere: { container: "vault" } } as const;
export const IN_MANAGED_HSM = { onlyWhere: { container: "managedHsm" } } as const;

/**
 * The CIS Microsoft Azure Foundations Benchmark v2.0.0 (Center for Internet Security, 2023): the
 * version whose numbering the rules cite, because it can be confirmed from published sources. Azure
 * Policy's built-in initiative "CIS Microsoft Azure Foundations Benchmark v2.0.0" (github.com/Azure/azure-policy,
 * built-in-policies/policySetDefinitions/Regulatory Compliance/CISv2_0_0.json, commit
 * b284494995526de30c1469c9718f8c029bfbc177) files the same built-ins under the same numbers: 0a370ff3
 * under 4.1.3, 17k78e20 under 4.1.5, 152b15f7 (key expiration) under 8.1 and 8.2, 0b60c0b2 and
 * 1e66c121 (recoverable vaults) under 8.5; the titles are the benchmark's (as Prowler's mapping of
 * it, github.com/prowler-cloud/prowler prowler/compliance/azure/cis_2.0_azure.json at commit
 * b9298b4023f14cf5e119468c7e19914b5cd5a97b, blob 59bd1533529aee8b75f80168b6c2bf2490a62dc3, quotes
 * them). Version 1.5.0 was cited before; its 8.x numbering could not be confirmed.
 */
export const CIS_AZURE_2_0_0 = {
  framework: "CIS Microsoft Azure Foundations Benchmark",
  version: "2.0.0",
  uri: "https://www.cisecurity.org/benchmark/azure",
} as const;

/** A built-in Azure Policy definition: its name (id), display name and version, as published in github.com/Azure/azure-policy. */
export function azurePolicy(id: string, title: string, version: string, file: string): Control {
  return {
    framework: "Azure Policy",
    version,
    id,
    title,
    uri: `https://github.com/Azure/azure-policy/blob/master/built-in-policies/policyDefinitions/${file}`,
  };
}

/** `CIS Microsoft Azure Foundations Benchmark 2.0.0 4.1.3`: how a control is named in one line. */
export function controlName(c: Pick<Control, "framework" | "version" | "id">): string {
  return `${c.framework} ${c.version} ${c.id}`;
}

/** One key per control (framework, version and id), for grouping findings by control. */
export function controlKey(c: Pick<Control, "framework" | "version" | "id">): string {
  return `${c.framework}\u0000${c.version}\u0000${c.id}`;
}
