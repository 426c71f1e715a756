/** How a rule's failures count: `mandatory` fails check and `pulumi up`, `advisory` is reported only, `disabled` is not run. */
export type EnforcementLevel = "advisory" | "mandatory" | "disabled";
export const ENFORCEMENT_LEVELS: readonly EnforcementLevel[] = ["advisory", "mandatory", "disabled"];
