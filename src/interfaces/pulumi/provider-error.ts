import { errorLine } from "../../platform/errors/error-line";
import { swCodeOf } from "../../platform/errors/stackwarden-error";

/**
 * An error as a provider hands it to the engine, which shows its message only: one that carries a
 * stable code reads `stackwarden: SW_CODE: message`, as every command's error line does (the code
 * says what to do: SW_LOCK_HELD, wait or retry; SW_LOCK_LOST, the lock changed hands). Others are
 * returned as they are.
 */
export function withErrorCode(e: unknown): unknown {
  const code = swCodeOf(e);
  return code ? new Error(errorLine("stackwarden", code, (e as Error).message), { cause: e }) : e;
}
