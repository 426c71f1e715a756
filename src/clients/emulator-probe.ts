import { ApiError } from "../platform/http/api-error";
import { HttpTransport } from "../platform/http/transport";
import { isUnreachableCode } from "../platform/http/unreachable";

/**
 * The route a probe asks: an admin route every emulator serves at its base URL. Admin routes are
 * outside the emulator's fault injection and request counts, so a probe neither meets an injected
 * 429 nor changes the figures tests and benches read from `/_emulator/stats`.
 */
export const EMULATOR_PROBE_PATH = "/_emulator/stats";

/**
 * How long a probe waits for an answer, connecting included, in ms. Default 1500 (1.5 seconds): a
 * wrong URL is named within 2 s of the command's start, and an emulator on this machine answers
 * the admin route in a few ms even under load.
 */
export const PROBE_TIMEOUT_MS = 1500;

/** What a probe of a base URL found. */
export type EmulatorProbe =
  /** The emulator answered its admin route. */
  | { kind: "emulator" }
  /** Something answered 404: a server (perhaps the emulator itself) with no such route under this URL. */
  | { kind: "not-found"; said: string }
  /** Something answered, but not as the emulator does (another status, or another body). */
  | { kind: "foreign"; said: string }
  /** The TLS handshake failed: an https URL for a server that speaks plain http, or a certificate refused. */
  | { kind: "tls"; said: string }
  /** Nothing could be reached: refused, no such host, no route (`code` is the system's: `ECONNREFUSED` …). */
  | { kind: "unreachable"; code: string }
  /** No answer within the timeout: inconclusive (a slow emulator is not a wrong URL). */
  | { kind: "no-answer"; said: string };

/**
 * Asks `GET <base>/_emulator/stats` once (no retry, `timeoutMs` in all) and says what answered.
 * Never throws: every failure is a finding.
 */
export async function probeEmulator(base: string, timeoutMs: number = PROBE_TIMEOUT_MS): Promise<EmulatorProbe> {
  const transport = new HttpTransport({
    baseUrl: base,
    timeoutMs,
    retry: { maxAttempts: 1, retryUnreachable: false },
    service: "emulator",
  });
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await transport.request<unknown>({ operation: "Emulator_Probe", method: "GET", path: EMULATOR_PROBE_PATH, signal });
    if (isEmulatorStats(res.body)) return { kind: "emulator" };
    const type = String(res.headers["content-type"] ?? "no content type").split(";")[0];
    return { kind: "foreign", said: `HTTP ${res.status} with ${type}, not the emulator's statistics` };
  } catch (e) {
    return failureOf(e, signal.aborted, timeoutMs);
  }
}

/** The emulator's `/_emulator/stats` answer: a request count and the counts by route. */
function isEmulatorStats(body: unknown): boolean {
  const b = body as { total?: unknown; byRoute?: unknown } | null;
  return typeof b === "object" && b !== null && typeof b.total === "number" && typeof b.byRoute === "object" && b.byRoute !== null;
}

/** A failed probe, classified by the transport's status and code. */
function failureOf(e: unknown, timedOut: boolean, timeoutMs: number): EmulatorProbe {
  if (!(e instanceof ApiError)) return { kind: "foreign", said: e instanceof Error ? e.message : String(e) };
  if (timedOut || e.code === "RequestAborted" || /TIMEOUT/.test(e.code))
    return { kind: "no-answer", said: `no answer within ${timeoutMs} ms` };
  if (e.status === 404) return { kind: "not-found", said: `HTTP 404 ${e.code}` };
  if (e.status !== 0) return { kind: "foreign", said: `HTTP ${e.status} ${e.code}` };
  if (isTlsCode(e.code)) return { kind: "tls", said: `the TLS handshake failed (${e.code})` };
  if (isUnreachableCode(e.code)) return { kind: "unreachable", code: e.code };
  return { kind: "foreign", said: `${e.code}: ${e.detail}` };
}

/** Whether a transport code is a TLS failure: OpenSSL's (`ERR_SSL_…`), Node's (`ERR_TLS_…`), a certificate's, or a protocol error. */
function isTlsCode(code: string): boolean {
  return /^ERR_(SSL|TLS)_/.test(code) || /CERT|SELF_SIGNED|EPROTO/.test(code);
}

/** Base URLs an emulator has answered at, in this process: a command probes each once, however many clients it builds. */
const answered = new Map<string, Promise<EmulatorProbe>>();

/**
 * `probeEmulator`, remembered for the process when the emulator answered (one request per URL);
 * any other finding is asked again next time (an emulator may have been started since).
 */
export function probeEmulatorOnce(base: string, timeoutMs: number = PROBE_TIMEOUT_MS): Promise<EmulatorProbe> {
  let probe = answered.get(base);
  if (!probe) {
    probe = probeEmulator(base, timeoutMs);
    answered.set(base, probe);
    const kept = probe;
    void kept.then((p) => {
      if (p.kind !== "emulator" && answered.get(base) === kept) answered.delete(base);
    });
  }
  return probe;
}
