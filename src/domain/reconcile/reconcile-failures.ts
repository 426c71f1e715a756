import { leadingCode } from "../../platform/errors/error-code-of";
import { StackwardenError } from "../../platform/errors/stackwarden-error";
import { callFailureCode } from "../../platform/errors/call-failure-code";
import type { UnreadEntry } from "../stack/unread-entry";
import type { ApplyOutcome } from "./tde-apply";

// The errors a reconciliation (a watch tick) ends with after it did what it could: their codes come
// from the failures under them, so that a status can tell a throttled read or a stuck scan (retried)
// from a database the cloud does not have or a refused credential (someone must act).

/** Changes that did not converge: `SW_NOT_CONVERGED`, or the code of what refused them (a 403 needs a person). */
export function notConvergedError(outcomes: readonly ApplyOutcome[]): StackwardenError {
  const failed = outcomes.filter((o) => !o.ok);
  const code = leadingCode(failed.map((o) => o.code ?? "SW_NOT_CONVERGED")) ?? "SW_NOT_CONVERGED";
  return new StackwardenError(code, `${failed.length} change(s) did not converge; they are tried again next tick`);
}

/** Resources of the stack that could not be read: the code of their answers (a 404 or 403 first, then a 429 or 5xx). */
export function unreadError(unread: readonly UnreadEntry[]): StackwardenError {
  const code = leadingCode(unread.map((u) => callFailureCode(u.status, u.code))) ?? "SW_RESOURCE_NOT_FOUND";
  return new StackwardenError(
    code,
    `${unread.length} database(s) of the stack could not be read (${unread.map((u) => u.label).join(", ")})`,
  );
}
