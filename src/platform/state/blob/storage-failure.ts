import { StackwardenError } from "../../errors/stackwarden-error";
import { scrubSecrets } from "../../redaction";
import { STATE_KEY_VAR } from "../state-url";
import { STORE_SILENT, UNANSWERED_RETRIED } from "./try-deadline-policy";

/** How the container is reached: what an authorization failure's advice depends on. */
export type StorageCredentialKind = "sas" | "key" | "chain";

/** What a storage failure's message names: the container, the credential, and where each came from. */
export interface StorageFailureContext {
  /** The container's URL (no secret). */
  base: string;
  account: string;
  credential: StorageCredentialKind;
  /** Where the state URL came from: `--state-url` or STACKWARDEN_STATE_URL. */
  source: string;
  /** Each try's deadline, in ms (STACKWARDEN_STATE_TIMEOUT_MS). */
  tryMs: number;
  /** The SAS and the account key, removed from every message. */
  secrets: string[];
}

/** The HTTP status of a storage error (0 when no answer came). */
export function statusOf(e: unknown): number {
  return (e as { statusCode?: number }).statusCode ?? 0;
}

/** The storage service's error code (`LeaseAlreadyPresent`, `BlobAlreadyExists`, `AuthenticationFailed` …). */
export function storageCodeOf(e: unknown): string {
  const err = e as { code?: string; details?: { errorCode?: string } };
  return err.details?.errorCode ?? err.code ?? "";
}

/**
 * A storage failure as one line naming what was done where, secrets removed: SW_STATE_FORBIDDEN
 * when the service refused the credential or its permissions (401/403: retrying will not help;
 * the advice names what to check for the credential in use), SW_STATE_UNAVAILABLE otherwise.
 */
export function storageFailure(what: string, e: unknown, ctx: StorageFailureContext): StackwardenError {
  const status = statusOf(e);
  const code = storageCodeOf(e);
  const message = scrubSecrets(((e as Error).message ?? String(e)).split("\n")[0], ctx.secrets);
  if (status === 401 || status === 403)
    return new StackwardenError(
      "SW_STATE_FORBIDDEN",
      `cannot ${what}: HTTP ${status} ${code ? `${code}: ` : ""}${message}; ${refusalAdvice(code, ctx)}`,
      { cause: e },
    );
  if (status !== 0)
    return new StackwardenError("SW_STATE_UNAVAILABLE", `cannot ${what}: HTTP ${status} ${code ? `${code}: ` : ""}${message}`, {
      cause: e,
    });
  const said =
    code === STORE_SILENT || code === UNANSWERED_RETRIED
      ? `no answer within ${ctx.tryMs} ms a try (STACKWARDEN_STATE_TIMEOUT_MS)`
      : `${code ? `${code}: ` : ""}${message}`;
  return new StackwardenError("SW_STATE_UNAVAILABLE", `cannot ${what}: ${said}; is the store reachable? (${ctx.source})`, { cause: e });
}

/** What to check when the service refused: the key, the SAS, or the identity's role. */
function refusalAdvice(code: string, ctx: StorageFailureContext): string {
  const network =
    code === "AuthorizationFailure" || code === "AuthorizationSourceIPMismatch"
      ? "; if it is, the account's network rules may refuse this machine"
      : "";
  switch (ctx.credential) {
    case "key":
      return `check ${STATE_KEY_VAR}: it must be a current access key of the account ${ctx.account}${network}`;
    case "sas":
      return `check the SAS in the state URL (${ctx.source}): it must be valid now (st, se), signed with a current key, and allow read, add, create, write, delete and list (sp=racwdl) on ${ctx.base}${network}`;
    case "chain":
      return `the identity needs the role Storage Blob Data Contributor on ${ctx.base} (or its account), or use a SAS in the state URL${network}`;
  }
}
