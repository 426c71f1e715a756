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
}

/** The CIS Microsoft Azure Foundations Benchmark v1.5.0 (Center for Internet Security, 2022). */
export const CIS_AZURE_1_5_0 = {
  framework: "CIS Microsoft Azure Foundations Benchmark",
  version: "1.5.0",
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

/** `CIS Microsoft Azure Foundations Benchmark 1.5.0 4.1.3`: how a control is named in one line. */
export function controlName(c: Pick<Control, "framework" | "version" | "id">): string {
  return `${c.framework} ${c.version} ${c.id}`;
}

/** One key per control (framework, version and id), for grouping findings by control. */
export function controlKey(c: Pick<Control, "framework" | "version" | "id">): string {
  return `${c.framework}\u0000${c.version}\u0000${c.id}`;
}
