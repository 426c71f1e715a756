import type { PipelinePolicy } from "@azure/core-rest-pipeline";
import { RestError } from "@azure/storage-blob";
import type { StoreSilence } from "./store-silence";

/** The policy's name in the storage client's pipeline. */
export const tryDeadlinePolicyName = "stackwardenTryDeadline";

/**
 * The error code of a try that got no answer in time and may be tried again: one the storage
 * client's retry policy retries (it retries network errors by these codes).
 */
export const UNANSWERED_RETRIED = "ETIMEDOUT";
/** The error code of a try that got no answer from a store that answers nothing: not retried. */
export const STORE_SILENT = "StoreNotAnswering";

/**
 * A client-side deadline for each try of a storage request, as the storage client's retry policy
 * lacks one (its `tryTimeoutInMs` only asks the service, through `?timeout=`, to give up: a store
 * that never answers is waited for forever). Placed after the retry and signing policies, it gives
 * every try its own abort signal, `tryMs` from when it is sent (joined with the caller's): a try
 * without an answer (headers and body) by then is aborted. Whether the retry policy tries again is
 * the store's silence's to say: a stray stall is retried, a store that answers nothing is not.
 */
export function tryDeadlinePolicy(tryMs: number, silence: StoreSilence): PipelinePolicy {
  return {
    name: tryDeadlinePolicyName,
    async sendRequest(request, next) {
      const caller = request.abortSignal as AbortSignal | undefined;
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), tryMs);
      timer.unref();
      const startedAt = Date.now();
      request.abortSignal = caller ? AbortSignal.any([caller, deadline.signal]) : deadline.signal;
      try {
        const response = await next(request);
        silence.answered();
        // A streamed body (a download) is part of the answer: the deadline holds until it is read.
        const body = response.readableStreamBody;
        if (body) body.once("close", () => clearTimeout(timer));
        else clearTimeout(timer);
        return response;
      } catch (e) {
        clearTimeout(timer);
        if (!deadline.signal.aborted || caller?.aborted) throw e;
        const again = silence.mayRetryUnanswered(startedAt);
        throw new RestError(`no answer within ${tryMs} ms`, { code: again ? UNANSWERED_RETRIED : STORE_SILENT, request });
      } finally {
        request.abortSignal = caller;
      }
    },
  };
}
