import type { AuditChange } from "../domain/audit/audit-entry";
import type { PreparedProbes } from "../domain/probes/probe-runner";
import type { StateStores } from "../domain/state/state-ports";
import type { EngineSummary } from "../platform/programs/pulumi-engine";
import { EXIT_PROBE_FAILED, runStackProbes, type ProbeOutcome } from "./probe";
import { reconcileStack, type ApplyHooks, type LockHooks, type ReconcileRequest } from "./reconcile";

export { applyChanges, NotConfirmedError, type ApplyHooks, type ApplyTuning, type LockHooks } from "./reconcile";

/** One apply of a stack from the command line: a reconciliation of the whole stack, then its probes when asked. */
export interface ApplyRequest extends Omit<ReconcileRequest, "only" | "alsoRecord" | "commit" | "stop" | "state"> {
  state: StateStores;
  /** Probes to run once the apply has converged (`apply --probe`), prepared before anything changes. */
  probes?: PreparedProbes;
}

/** How an apply of a stack ended. */
export interface ApplyStackResult {
  exitCode: number;
  /** The audit entry written, when something changed (its sequence number and where the trail is). */
  audited?: { seq: number; where: string };
  /** Each change made, as the audit entry records it (resource, before, after, outcome). */
  changes: AuditChange[];
  /** The engine's closing line (pulumi engine), to print last. */
  summary?: EngineSummary;
  /** The probes' run, when asked for and the apply converged. */
  probes?: ProbeOutcome;
}

/**
 * Applies a stack by the chosen engine (reconcileStack: under its lock, audited), then runs its
 * probes when asked and it converged. A held lock fails at once naming the holder, unless
 * `lockTimeoutMs` says to wait.
 */
export async function applyStack(req: ApplyRequest, hooks: ApplyHooks & LockHooks = {}): Promise<ApplyStackResult> {
  const { entry, exitCode, summary } = await reconcileStack(req, hooks);
  const applied: ApplyStackResult = {
    exitCode,
    changes: entry.what,
    ...(entry.what.length > 0 ? { audited: { seq: entry.seq, where: req.state.audit.where(req.stackName) } } : {}),
    ...(summary ? { summary } : {}),
  };
  // A failed probe does not undo the apply and is not in the audit entry (which records changes);
  // nothing is probed when the apply did not converge: there is no deployment to prove.
  if (!req.probes || applied.exitCode !== 0) return applied;
  const probes = await runStackProbes(req.probes, { stackName: req.stackName, state: req.state, command: "apply --probe" });
  return { ...applied, probes, exitCode: probes.run.failed > 0 ? EXIT_PROBE_FAILED : 0 };
}
