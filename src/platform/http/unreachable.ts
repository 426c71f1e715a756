import { StackwardenError } from "../errors/stackwarden-error";
import { isLoopbackHost } from "./credential-origins";

// The codes live below the transport (call-failure-code.ts), with the mapping of a failed call to
// its stable code; the transport's modules and the clients keep importing them from here.
export { UNREACHABLE_CODES, isUnreachableCode } from "../errors/call-failure-code";

/** An endpoint, with what chose it when known: `http://127.0.0.1:4000 (set by STACKWARDEN_EMULATOR)`, `https://… (the default of …)`. */
export function describeEndpoint(base: string, setting?: string): string {
  if (!setting) return base;
  return `${base} (${setting.startsWith("the default of ") ? setting : `set by ${setting}`})`;
}

/** What to do about an endpoint nothing answers at, in a few words. */
export function unreachableAdvice(base: URL, setting?: string): string {
  if (setting === "STACKWARDEN_EMULATOR" || setting === "--emulator" || isLoopbackHost(base.hostname)) {
    return "is the emulator running there? (npx stackwarden emulator --port N, then export STACKWARDEN_EMULATOR=<its url>)";
  }
  if (setting?.startsWith("the default of ")) {
    return `set ${setting.slice("the default of ".length)} (or STACKWARDEN_EMULATOR) to use another`;
  }
  return setting ? `check ${setting}` : "check the endpoint";
}

/**
 * A credential's token source (an IMDS) that nothing answers at: the endpoint is down, so no
 * other credential is tried, and the message names the endpoint and what set it, not credentials.
 */
export class EndpointUnreachableError extends StackwardenError {
  constructor(
    /** The transport's code (`ECONNREFUSED` …). */
    readonly code: string,
    message: string,
  ) {
    super("SW_ENDPOINT_UNREACHABLE", message);
    this.name = "EndpointUnreachableError";
  }
}
