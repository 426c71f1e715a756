import { setTimeout as sleep } from "node:timers/promises";
import { Agent, interceptors, type Dispatcher } from "undici";
import { ApiError } from "./api-error";
import type { OutgoingRequest, RawResponse, Send } from "./pipeline";
import { decideRetry, type RetryPolicyOptions } from "./retry-policy";
import { emitRequestEvent, hasRequestListeners, serviceOfRequest } from "./request-events";
import type { TransportContext } from "./transport-context";

let sharedAgent: Dispatcher | undefined;
/** One keep-alive agent for the process, with undici's retry interceptor composed in. */
export function sharedDispatcher(): Dispatcher {
  sharedAgent ??= composeRetry(new Agent({ connections: 256, keepAliveTimeout: 10_000, pipelining: 1 }));
  return sharedAgent;
}

const withRetry = new WeakSet<Dispatcher>();

/** Wraps a dispatcher with undici's retry interceptor; the per-request policy decides each retry. Idempotent. */
export function composeRetry(dispatcher: Dispatcher): Dispatcher {
  if (withRetry.has(dispatcher)) return dispatcher;
  // throwOnError=false: when the policy gives up, the last response is handed on as it is,
  // so the caller can read its error body.
  const composed = dispatcher.compose(interceptors.retry({ throwOnError: false, maxRetries: 1_000 }));
  withRetry.add(composed);
  return composed;
}

/**
 * Errors of an answer whose body was cut off: the socket closed mid-body, or undici's retry gave up
 * because it could only have resumed with a range request.
 */
const CUT_OFF = new Set(["UND_ERR_SOCKET", "UND_ERR_REQ_RETRY", "ECONNRESET", "UND_ERR_BODY_TIMEOUT"]);

interface RetryableError extends Error {
  statusCode?: number;
  code?: string;
  headers?: Record<string, string | string[] | undefined> | null;
}

/**
 * The terminal stage: sends through undici, whose retry interceptor asks `decideRetry` before each
 * new attempt (so retries happen below the stages, with the same headers), with per-attempt
 * timeouts; reads the body; turns "no response" into an ApiError with status 0.
 */
export function dispatchTo(ctx: TransportContext, dispatcher: Dispatcher, policy: RetryPolicyOptions, timeoutMs: number): Send {
  return async (req: OutgoingRequest): Promise<RawResponse> => {
    const spec = req.spec;
    const retry = spec.retry ? { ...policy, ...spec.retry } : policy;
    const signal = spec.signal;
    const started = Date.now();
    let attempts = 1;
    /** Whether the answer's headers have arrived: a failure after them is a body cut off, re-sent whole below. */
    let receiving = false;
    // Request events (metrics, src/http/request-events.ts): one per attempt, only when someone listens.
    const observe = (status: number, retrying: boolean) => {
      if (hasRequestListeners())
        emitRequestEvent({
          service: ctx.service ?? serviceOfRequest(ctx.baseUrl, req.path),
          operation: spec.operation,
          status,
          attempt: attempts,
          retrying,
        });
    };
    const retryOptions = {
      throwOnError: false,
      retry(err: RetryableError, _state: unknown, cb: (err?: Error | null) => void) {
        // undici would try to resume a cut-off body with a range request; ARM serves none, so that
        // attempt is wasted. Decline it: the loop below sends the whole request again instead.
        if (signal?.aborted || receiving) return cb(err);
        const decision = decideRetry(
          {
            method: spec.method,
            attempt: attempts,
            elapsedMs: Date.now() - started,
            status: err.statusCode,
            errorCode: err.code,
            headers: err.headers ?? undefined,
          },
          retry,
        );
        if (!decision.retry) {
          if (ctx.logger.debugEnabled !== false) ctx.logger.debug(`${ctx.describe(req)}: not retrying (${decision.reason})`);
          return cb(err);
        }
        observe(err.statusCode ?? 0, true);
        attempts += 1;
        ctx.logger.warn(
          `${ctx.describe(req)}: ${err.statusCode ?? err.code} on attempt ${attempts - 1}; retrying in ${decision.delayMs} ms`,
        );
        sleep(decision.delayMs, undefined, { signal }).then(
          () => cb(null),
          () => cb(err),
        );
      },
    };
    const timeout = spec.timeoutMs ?? timeoutMs;
    const opts = {
      origin: ctx.origin,
      path: req.path,
      method: spec.method,
      headers: req.headers,
      body: req.body,
      signal,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      retryOptions,
    } as unknown as Dispatcher.RequestOptions;
    for (;;) {
      receiving = false;
      try {
        const res = await dispatcher.request(opts);
        receiving = true;
        // Observed once the body is whole: an answer cut off is a failed attempt, not a success.
        const body = req.asBuffer ? { text: "", buffer: Buffer.from(await res.body.arrayBuffer()) } : { text: await res.body.text() };
        observe(res.statusCode, false);
        return { res, ...body, attempts, sentPath: req.path };
      } catch (e) {
        if (e instanceof ApiError) throw e;
        const err = e as RetryableError;
        const aborted = signal?.aborted || err.name === "AbortError";
        // An answer cut off in its body (the connection closed before its declared length): undici's
        // retry can only resume with a range request, which ARM does not serve, so the whole request
        // is sent again, under the same policy and budget as any other retry.
        if (!aborted && CUT_OFF.has(err.code ?? "")) {
          const decision = decideRetry(
            { method: spec.method, attempt: attempts, elapsedMs: Date.now() - started, errorCode: "UND_ERR_SOCKET" },
            retry,
          );
          if (decision.retry) {
            observe(0, true);
            attempts += 1;
            ctx.logger.warn(
              `${ctx.describe(req)}: the answer was cut off on attempt ${attempts - 1}; sending again in ${decision.delayMs} ms`,
            );
            const waited = await sleep(decision.delayMs, true, { signal }).catch(() => false);
            if (waited) continue;
          }
        }
        observe(0, false);
        throw ctx.failure(
          spec,
          aborted ? "RequestAborted" : (err.code ?? "ConnectionError"),
          aborted
            ? "the request was cancelled"
            : `no response from ${ctx.origin} after ${attempts} attempt(s) in ${Date.now() - started} ms: ${err.message}`,
          { path: req.path, clientRequestId: req.clientRequestId, attempts },
        );
      }
    }
  };
}
