import { setTimeout as sleep } from "node:timers/promises";
import { Agent, interceptors, type Dispatcher } from "undici";
import { ApiError } from "./api-error";
import type { OutgoingRequest, RawResponse, Send } from "./pipeline";
import { decideRetry, type RetryDecision, type RetryPolicyOptions } from "./retry-policy";
import { emitRequestEvent, hasRequestListeners, serviceOfRequest } from "./request-events";
import type { TransportContext } from "./transport-context";
import { describeEndpoint, isUnreachableCode, unreachableAdvice } from "./unreachable";

let sharedAgent: Dispatcher | undefined;
/** One keep-alive agent for the process, with undici's retry interceptor composed in. */
export function sharedDispatcher(): Dispatcher {
  sharedAgent ??= composeRetry(new Agent({ connections: 256, keepAliveTimeout: 10_000, pipelining: 1 }));
  return sharedAgent;
}

const withRetry = new WeakSet<Dispatcher>();
/** The dispatcher each composed one wraps: first attempts go straight to it. */
const plainOf = new WeakMap<Dispatcher, Dispatcher>();

/** Wraps a dispatcher with undici's retry interceptor; the per-request policy decides each retry. Idempotent. */
export function composeRetry(dispatcher: Dispatcher): Dispatcher {
  if (withRetry.has(dispatcher)) return dispatcher;
  // throwOnError=false: when the policy gives up, the last response is handed on as it is,
  // so the caller can read its error body.
  const composed = dispatcher.compose(interceptors.retry({ throwOnError: false, maxRetries: 1_000 }));
  withRetry.add(composed);
  plainOf.set(composed, dispatcher);
  return composed;
}

/** A replayable body: sent again as it is (a stream or form is sent through the retry interceptor from the start). */
function replayable(body: OutgoingRequest["body"]): boolean {
  return body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
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
  // undici's retry handler costs about as much per request as the rest of the transport (a handler
  // object, a wrapped controller, header bookkeeping), and nearly every request succeeds at once.
  // So the first attempt goes to the dispatcher under it; only a failure that the policy retries is
  // handed to the retry-composed one, which makes attempts 2, 3 … with the same policy. Nothing of
  // the retry machinery is built for a request that succeeds at once.
  const plain = plainOf.get(dispatcher);
  return async (req: OutgoingRequest): Promise<RawResponse> => {
    const spec = req.spec;
    const signal = spec.signal;
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
    } as Dispatcher.RequestOptions;
    const retries = new Retries(ctx, req, spec.retry ? { ...policy, ...spec.retry } : policy);
    for (;;) {
      retries.receiving = false;
      try {
        let res: Dispatcher.ResponseData;
        if (plain && replayable(req.body)) {
          // The first attempt, without the retry handler. A response of 300 or more, or no response, is
          // put to the policy as the retry interceptor would put it; when it says retry, the answer's body
          // is discarded (freeing the connection), the delay waited, and the rest is the interceptor's.
          let first: Dispatcher.ResponseData | undefined;
          let failure: RetryableError | undefined;
          try {
            first = await plain.request(opts);
          } catch (e) {
            failure = e as RetryableError;
            if (signal?.aborted || failure.name === "AbortError") throw e;
          }
          if (first && (first.statusCode < 300 || signal?.aborted)) {
            res = first;
          } else {
            const decision = retries.decide(
              failure ?? {
                name: "ResponseStatus",
                message: `status ${first!.statusCode}`,
                statusCode: first!.statusCode,
                headers: first!.headers,
              },
            );
            if (!decision.retry) {
              if (failure) throw failure;
              res = first!;
            } else {
              if (first) await first.body.dump();
              await sleep(decision.delayMs, undefined, { signal });
              res = await retries.send(dispatcher, opts, signal);
            }
          }
        } else {
          res = await retries.send(dispatcher, opts, signal);
        }
        retries.receiving = true;
        // Observed once the body is whole: an answer cut off is a failed attempt, not a success.
        // One result object, no intermediate to spread: every request of every client ends here.
        const raw: RawResponse = req.asBuffer
          ? { res, text: "", buffer: Buffer.from(await res.body.arrayBuffer()), attempts: retries.attempts, sentPath: req.path }
          : { res, text: await res.body.text(), attempts: retries.attempts, sentPath: req.path };
        retries.observe(res.statusCode, false);
        return raw;
      } catch (e) {
        if (e instanceof ApiError) throw e;
        const err = e as RetryableError;
        const aborted = signal?.aborted || err.name === "AbortError";
        // An answer cut off in its body (the connection closed before its declared length): undici's
        // retry can only resume with a range request, which ARM does not serve, so the whole request
        // is sent again, under the same policy and budget as any other retry.
        if (!aborted && (retries.receiving || err.code === "UND_ERR_REQ_RETRY") && CUT_OFF.has(err.code ?? "")) {
          const decision = retries.decide({ ...err, name: err.name, message: err.message, code: "UND_ERR_SOCKET" }, true);
          if (decision.retry && (await sleep(decision.delayMs, true, { signal }).catch(() => false))) continue;
        }
        retries.observe(0, false);
        throw ctx.failure(
          spec,
          aborted ? "RequestAborted" : (err.code ?? "ConnectionError"),
          aborted ? "the request was cancelled" : noResponse(ctx, err, retries),
          { path: req.path, clientRequestId: req.clientRequestId, attempts: retries.attempts },
        );
      }
    }
  };
}

/**
 * Why a call got no answer: the endpoint (and, when known, what set it), the attempts, the
 * system's words; when nothing could be reached at all, what to do about the endpoint.
 */
function noResponse(ctx: TransportContext, err: RetryableError, retries: Retries): string {
  const base = ctx.endpointSetting ? describeEndpoint(ctx.origin + ctx.basePath, ctx.endpointSetting) : ctx.origin;
  const said = `no response from ${base} after ${retries.attempts} attempt(s) in ${Date.now() - retries.started} ms: ${err.message}`;
  return isUnreachableCode(err.code) ? `${said}; ${unreachableAdvice(ctx.baseUrl, ctx.endpointSetting)}` : said;
}

/** The attempts of one request: counts them, asks the policy before each new one, and reports each (request events). */
class Retries {
  attempts = 1;
  readonly started = Date.now();
  /** Whether the answer's headers have arrived: a failure after them is a body cut off, re-sent whole by dispatchTo. */
  receiving = false;

  constructor(
    private readonly ctx: TransportContext,
    private readonly req: OutgoingRequest,
    private readonly policy: RetryPolicyOptions,
  ) {}

  /** Request events (metrics, src/platform/http/request-events.ts): one per attempt, only when someone listens. */
  observe(status: number, retrying: boolean): void {
    if (!hasRequestListeners()) return;
    emitRequestEvent({
      service: this.ctx.service ?? serviceOfRequest(this.ctx.baseUrl, this.req.path),
      operation: this.req.spec.operation,
      status,
      attempt: this.attempts,
      retrying,
    });
  }

  /** Whether (and when) to try again after this failure; logs the decision. */
  decide(err: RetryableError, cutOff = false): RetryDecision {
    const decision = decideRetry(
      {
        method: this.req.spec.method,
        attempt: this.attempts,
        elapsedMs: Date.now() - this.started,
        status: err.statusCode,
        errorCode: err.code,
        headers: err.headers ?? undefined,
      },
      this.policy,
    );
    if (!decision.retry) {
      if (this.ctx.logger.debugEnabled !== false)
        this.ctx.logger.debug(`${this.ctx.describe(this.req)}: not retrying (${decision.reason})`);
      return decision;
    }
    this.observe(err.statusCode ?? 0, true);
    this.attempts += 1;
    if (this.attempts === 2 && this.ctx.logger.notice) {
      const base = describeEndpoint(this.ctx.origin + this.ctx.basePath, this.ctx.endpointSetting);
      const cause = err.statusCode ? `HTTP ${err.statusCode}` : (err.code ?? err.name);
      this.ctx.logger.notice(
        `${this.req.spec.operation} got ${cause} from ${base}; retrying (up to ${this.policy.maxAttempts} attempts in ${Math.round(this.policy.maxElapsedMs / 1000)} s)`,
        `${this.ctx.origin} ${cause}`,
      );
    }
    this.ctx.logger.warn(
      cutOff
        ? `${this.ctx.describe(this.req)}: the answer was cut off on attempt ${this.attempts - 1}; sending again in ${decision.delayMs} ms`
        : `${this.ctx.describe(this.req)}: ${err.statusCode ?? err.code} on attempt ${this.attempts - 1}; retrying in ${decision.delayMs} ms`,
    );
    return decision;
  }

  /** Sends through the retry-composed dispatcher, whose interceptor asks `decide` before each new attempt. */
  send(dispatcher: Dispatcher, opts: Dispatcher.RequestOptions, signal: AbortSignal | undefined): Promise<Dispatcher.ResponseData> {
    const retryOptions = {
      throwOnError: false,
      retry: (err: RetryableError, _state: unknown, cb: (err?: Error | null) => void) => {
        // undici would try to resume a cut-off body with a range request; ARM serves none, so that
        // attempt is wasted. Decline it: dispatchTo sends the whole request again instead.
        if (signal?.aborted || this.receiving) return cb(err);
        const decision = this.decide(err);
        if (!decision.retry) return cb(err);
        sleep(decision.delayMs, undefined, { signal }).then(
          () => cb(null),
          () => cb(err),
        );
      },
    };
    return dispatcher.request({ ...opts, retryOptions } as unknown as Dispatcher.RequestOptions);
  }
}
