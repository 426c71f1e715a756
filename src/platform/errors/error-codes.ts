/**
 * Every error code stackwarden prints (`stackwarden: SW_LOCK_HELD: …`, `{"error":{"code":…}}`), in one
 * catalogue: the code is stable (scripts and people grep for it), the exit code is what the CLI
 * returns, `retry` says whether trying again later can help (`transient`) or a person must act
 * (`person`), and `action` is the README's "what to do". Adding a code is one entry here; the
 * README's table is checked against this list by a test.
 */
export const ERROR_CODES = {
  SW_INTERNAL: {
    exit: 1,
    retry: "person",
    action: "a bug in stackwarden: report it with the command line (the message names the JavaScript error)",
  },
  SW_LOCK_HELD: {
    exit: 1,
    retry: "transient",
    action: "another apply holds the stack's lock: wait for it (--lock-timeout 5m), or see it with `stackwarden lock status`",
  },
  SW_LOCK_LOST: {
    exit: 1,
    retry: "transient",
    action: "the lock was lost while held (its lease lapsed or was broken): nothing more was written; run the command again",
  },
  SW_AUDIT_TRAIL_DAMAGED: {
    exit: 1,
    retry: "person",
    action: "the audit trail's end is damaged: run `stackwarden audit verify`, then move the trail aside to start a new one",
  },
  SW_STATE_UNAVAILABLE: {
    exit: 1,
    retry: "transient",
    action:
      "the state store (files or Blob Storage) could not be read or written: check STACKWARDEN_STATE_URL, permissions and the network",
  },
  SW_STATE_URL_INVALID: {
    exit: 1,
    retry: "person",
    action:
      "STACKWARDEN_STATE_URL / --state-url is not a state URL: use file:DIR, https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX] or http://HOST:PORT/ACCOUNT/CONTAINER",
  },
  SW_TOOL_MISSING: {
    exit: 1,
    retry: "person",
    action: "a program stackwarden runs is not installed (the Pulumi CLI, Azurite): the message says how to install it",
  },
  SW_NOT_LEADER: {
    exit: 1,
    retry: "transient",
    action:
      "this watcher replica stands by: the leader (see /api/v1/replica) does the writing; it takes over when the leader's lease lapses",
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** What the catalogue says of one code. */
export interface ErrorCodeInfo {
  /** The CLI's exit code when this error ends a command. */
  exit: number;
  /** `transient`: the same command may work later unchanged; `person`: someone must change something first. */
  retry: "transient" | "person";
  /** What to do about it, in one sentence (the README's table). */
  action: string;
}

/** A stable error code: `SW_` and upper-case words. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The catalogue entry of a code. */
export function errorCodeInfo(code: ErrorCode): ErrorCodeInfo {
  return ERROR_CODES[code];
}
