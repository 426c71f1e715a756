/** How a rule's failures count: `mandatory` fails check and `pulumi up`, `advisory` is reported only, `disabled` is not run. */
export type EnforcementLevel = "advisory" | "mandatory" | "disabled";
export const ENFORCEMENT_LEVELS: readonly EnforcementLevel[] = ["advisory", "mandatory", "disabled"];

const RANK: Record<EnforcementLevel, number> = { disabled: 0, advisory: 1, mandatory: 2 };

/** The lower of two levels: a finding's own level, capped by its rule's configured one. */
export function lowerLevel(a: EnforcementLevel, b: EnforcementLevel): EnforcementLevel {
  return RANK[a] <= RANK[b] ? a : b;
}
