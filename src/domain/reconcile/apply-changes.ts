import type { AuditChange } from "../audit/audit-entry";
import type { TdeApi } from "./tde-api";
import type { ApplyOutcome } from "./tde-apply";
import type { TdePlanItem } from "./tde-plan";

/**
 * The audit trail's view of apply outcomes: each database's status before and after. A converged
 * change ends in the desired status (apply read it back); for a failed or interrupted one the
 * status is read again here, so the entry says where it really ended.
 */
export async function auditChangesOf(api: TdeApi, outcomes: readonly ApplyOutcome[], stopped?: AbortSignal): Promise<AuditChange[]> {
  return Promise.all(
    outcomes.map(async (o): Promise<AuditChange> => {
      const base = { resource: o.item.id, before: o.item.live ?? null, ...(o.item.cause ? { cause: o.item.cause } : {}) };
      if (o.ok) return { ...base, after: o.item.desired.transparentDataEncryption, outcome: "converged", scanDurationMs: o.elapsedMs };
      let after: string | null = null;
      try {
        after = (await api.getTransparentDataEncryption(o.item.ref)).properties?.status ?? null;
      } catch {
        /* unknown: recorded as null */
      }
      return { ...base, after, outcome: stopped?.aborted ? "interrupted" : "failed", put: o.put, error: o.error };
    }),
  );
}

/** A change about to be made, as the pending record of an apply (its `started` entry, if it is killed) records it. */
export function startedChange(item: TdePlanItem): AuditChange {
  return {
    resource: item.id,
    before: item.live ?? null,
    after: item.desired.transparentDataEncryption,
    outcome: "started",
    ...(item.cause ? { cause: item.cause } : {}),
  };
}
