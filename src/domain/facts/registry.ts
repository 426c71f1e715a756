import { gatherProblem } from "./carried-gather";
import type { FactKind } from "./fact-kind";
import { SUBJECT_SCOPES } from "./subject-scope";
import { artifactScans } from "./artifact-scans";
import { batchUsages } from "./batch-usages";
import { keyVaults } from "./key-vaults";
import { placements } from "./placements";
import { probeResults } from "./probe-results";
import { protectorKeys } from "./protector-keys";
import { tdeProtectors } from "./tde-protectors";
import { tdeStatus } from "./tde-status";
import { tierAdvice } from "./tier-advice";
import { vaultRoleAssignments } from "./vault-role-assignments";

/**
 * Every fact kind, in the order facts are listed. Adding a kind is one module in this folder plus
 * one line here; rules then name it in their `facts`.
 */
const FACT_KINDS: FactKind[] = [
  tdeStatus as FactKind,
  tierAdvice as FactKind,
  batchUsages as FactKind,
  artifactScans as FactKind,
  probeResults as FactKind,
  placements as FactKind,
  tdeProtectors as FactKind,
  keyVaults as FactKind,
  protectorKeys as FactKind,
  vaultRoleAssignments as FactKind,
];

/** The registered fact kinds, in order. */
export function allFactKinds(): readonly FactKind[] {
  return FACT_KINDS;
}

/** A fact kind by its key, if registered. */
export function findFactKind(key: string): FactKind | undefined {
  return FACT_KINDS.find((k) => k.key === key);
}

/**
 * Adds a fact kind at run time (an organisation's own, or a test's): rules can then name it, and
 * `check`, watch ticks and the policy pack build it. Load it before the rules that need it.
 */
export function registerFactKind<T>(kind: FactKind<T>): void {
  if (!/^[a-z][A-Za-z0-9]*$/.test(kind.key)) throw new Error(`fact kind key "${kind.key}" must be camelCase (it is a key of the facts)`);
  if (findFactKind(kind.key)) throw new Error(`a fact kind with the key "${kind.key}" is already registered`);
  if (!SUBJECT_SCOPES.includes(kind.scope))
    throw new Error(`fact kind "${kind.key}" must declare its scope, one of ${SUBJECT_SCOPES.join(", ")} (it is "${String(kind.scope)}")`);
  const problem = gatherProblem(kind as FactKind);
  if (problem) throw new Error(problem);
  const token = kind.carrier?.token;
  if (token && FACT_KINDS.some((k) => k.carrier?.token === token))
    throw new Error(`fact kind "${kind.key}": another kind's carrier already has the token ${token}`);
  FACT_KINDS.push(kind as FactKind);
}
