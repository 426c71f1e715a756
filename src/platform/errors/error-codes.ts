/**
 * Every error code stackwarden prints (`stackwarden: SW_LOCK_HELD: …`, `{"error":{"code":…}}`), in one
 * catalogue: the code is stable (scripts and people grep for it), the exit code is what the CLI
 * returns, `retry` says whether trying again later can help (`transient`) or a person must act
 * (`person`), and `action` is the reference's "what to do". Adding a code is one entry here; the
 * table of docs/reference.md is generated from this list (`npm run docs:reference`), and a test checks that every code is thrown
 * (or mapped to) somewhere in `src/`.
 */
export const ERROR_CODES = {
  SW_USAGE: {
    exit: 1,
    retry: "person",
    action: "a flag, an argument or their combination is wrong (the message names it): correct the command line; `--help` shows the rest",
  },
  SW_RUNTIME_UNSUPPORTED: {
    exit: 1,
    retry: "person",
    action:
      "the Node.js running stackwarden is older than 22 (engines.node): run `npm run node:install` and put the bin directory it prints first on PATH, or install Node 22 or 24",
  },
  SW_NOT_CONFIRMED: {
    exit: 1,
    retry: "person",
    action:
      "a change (an apply, a lock break) was not confirmed: no one could be asked (stdin is not a terminal) or the answer was no; pass --yes",
  },
  SW_STACK_NOT_FOUND: {
    exit: 1,
    retry: "person",
    action: "no stack file by that name: check --stack (the message lists the stacks found) or --config",
  },
  SW_CONFIG_INVALID: {
    exit: 1,
    retry: "person",
    action:
      "a file stackwarden reads (the stack file, the signature rules it names, a seed) is invalid: fix it at the file, line, column and key named",
  },
  SW_SETTING_INVALID: {
    exit: 1,
    retry: "person",
    action:
      "an environment variable or a flag's value cannot be used (an endpoint that is not a URL, a token over plain http): fix the variable named",
  },
  SW_EMULATOR_URL: {
    exit: 1,
    retry: "person",
    action:
      "STACKWARDEN_EMULATOR (or --emulator) does not lead to a running emulator (a path after the port, https for its plain http, nothing listening, another service): set it to the URL `stackwarden emulator` prints first, e.g. http://127.0.0.1:4000",
  },
  SW_CREDENTIAL_UNAVAILABLE: {
    exit: 1,
    retry: "person",
    action:
      "no credential gave a token (the message says what each one said): set AZURE_ACCESS_TOKEN, or run where the managed identity or the AZURE_* variables are",
  },
  SW_ACCESS_DENIED: {
    exit: 1,
    retry: "person",
    action:
      "the service refused the credential (401) or its permissions (403): grant the identity access to the resource named, or use another credential or key",
  },
  SW_RESOURCE_NOT_FOUND: {
    exit: 1,
    retry: "person",
    action:
      "the service has no such resource (404) or nothing matched: fix the name in the stack file (the line is named), or create the resource",
  },
  SW_REQUEST_REJECTED: {
    exit: 1,
    retry: "person",
    action: "the service refused the request as it was made (a 4xx other than 401, 403, 404, 429): its own code and message say why",
  },
  SW_RESPONSE_INVALID: {
    exit: 1,
    retry: "person",
    action:
      "the service answered with something stackwarden cannot use (not JSON, no id, a link elsewhere): give its operators the request id in the message",
  },
  SW_THROTTLED: {
    exit: 1,
    retry: "transient",
    action: "the service still throttled (429) after every retry: run again later, or lower --concurrency",
  },
  SW_SERVICE_ERROR: {
    exit: 1,
    retry: "transient",
    action: "the service failed (5xx) after every retry: run again later; if it lasts, give its operators the request id in the message",
  },
  SW_ENDPOINT_UNREACHABLE: {
    exit: 1,
    retry: "transient",
    action:
      "nothing answers at the endpoint (refused, no such host, no route): check the endpoint and the variable or flag that set it (named in the message), or start the emulator",
  },
  SW_TIMEOUT: {
    exit: 1,
    retry: "transient",
    action: "the endpoint took too long to answer, on every attempt: run again later; check the network to the endpoint named",
  },
  SW_CONNECTION_LOST: {
    exit: 1,
    retry: "transient",
    action: "the connection broke before a whole answer arrived, on every attempt: run again; check proxies and the network",
  },
  SW_CANCELLED: {
    exit: 1,
    retry: "transient",
    action: "the command was stopped (a signal, a shutdown) before it finished: run it again",
  },
  SW_NOT_CONVERGED: {
    exit: 1,
    retry: "transient",
    action:
      "a change was made but its encryption scan failed or did not finish in time: run again (watch retries next tick); the line says which",
  },
  SW_ARTIFACT_NOT_SCANNED: {
    exit: 1,
    retry: "transient",
    action:
      "an artifact could not be scanned (the file could not be read, or the binary analysis service failed): the line says why; fix the file or run again",
  },
  SW_GIT_FAILED: {
    exit: 1,
    retry: "transient",
    action: "a git command failed (git's own last line is quoted): check the remote, the branch and the network, or install git",
  },
  SW_TOOL_MISSING: {
    exit: 1,
    retry: "person",
    action: "a program stackwarden runs is not installed (the Pulumi CLI for --engine pulumi, Azurite): the message says how to install it",
  },
  SW_ENGINE_FAILED: {
    exit: 1,
    retry: "person",
    action: "`pulumi up` failed (apply --engine pulumi): its own output above says why; fix that, then apply again",
  },
  SW_FILE_EXISTS: {
    exit: 1,
    retry: "person",
    action:
      "a file `stackwarden init` would write exists already (the message names each one; nothing was written): keep yours, or pass --force to overwrite them",
  },
  SW_FILE_CHANGED: {
    exit: 1,
    retry: "person",
    action:
      "a file stackwarden was about to rewrite (the stack file, for `discover --write`) changed after it was read, by another run or an editor: nothing was written; run the command again on the file as it is now",
  },
  SW_IO_FAILED: {
    exit: 1,
    retry: "person",
    action:
      "a file or directory could not be read or written (the system's reason, e.g. EACCES or ENOSPC, is named): fix its path or permissions",
  },
  SW_ADDRESS_IN_USE: {
    exit: 1,
    retry: "person",
    action: "something already listens on that address: choose another --port (0 picks a free one), or stop what listens there",
  },
  SW_STATE_IN_USE: {
    exit: 1,
    retry: "person",
    action:
      "another live process holds this state directory (its pid is named): stop it, or run this one in another directory; a claim of a dead process is taken over",
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
      "the state store (files or Blob Storage) could not be read or written, or did not answer in time (STACKWARDEN_STATE_TIMEOUT_MS a try): check the network to it and that it runs (STACKWARDEN_STATE_URL / --state-url), or the files' permissions",
  },
  SW_STATE_FORBIDDEN: {
    exit: 1,
    retry: "person",
    action:
      "Blob Storage refused the state's credential or its permissions (401/403): check what the message names: STACKWARDEN_STATE_ACCOUNT_KEY, the SAS in the state URL (valid now, sp=racwdl), or the identity's role Storage Blob Data Contributor",
  },
  SW_STATE_URL_INVALID: {
    exit: 1,
    retry: "person",
    action:
      "STACKWARDEN_STATE_URL / --state-url is not a state URL, or cannot be used as given (plain http needs STACKWARDEN_STATE_ACCOUNT_KEY or a SAS): use file:DIR, https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX] or http://HOST:PORT/ACCOUNT/CONTAINER",
  },
  SW_NOT_LEADER: {
    exit: 1,
    retry: "transient",
    action:
      "this watcher replica stands by: the leader (see /api/v1/replica) does the writing; it takes over when the leader's lease lapses",
  },
  SW_EVENTS_UNAUTHENTICATED: {
    exit: 1,
    retry: "person",
    action:
      "watch --events on an address that is not loopback needs its deliveries authenticated: name the variable holding the shared secret with --events-secret-env (at least 16 characters), or listen on 127.0.0.1",
  },
  SW_INTERNAL: {
    exit: 1,
    retry: "person",
    action: "a bug in stackwarden: report it with the command line (the message names the JavaScript error)",
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** What the catalogue says of one code. */
export interface ErrorCodeInfo {
  /** The CLI's exit code when this error ends a command. */
  exit: number;
  /** `transient`: the same command may work later unchanged; `person`: someone must change something first. */
  retry: "transient" | "person";
  /** What to do about it, in one sentence (docs/reference.md's table). */
  action: string;
}

/** A stable error code: `SW_` and upper-case words. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The catalogue entry of a code. */
export function errorCodeInfo(code: ErrorCode): ErrorCodeInfo {
  return ERROR_CODES[code];
}

/** Whether a string is a code of the catalogue. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(ERROR_CODES, code);
}
