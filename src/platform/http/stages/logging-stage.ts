import type { Stage } from "../pipeline";
import { readRequestId } from "../request-ids";
import type { TransportContext } from "../transport-context";

export const LOGGING_STAGE = "logging";

/**
 * A debug line per call, redacted: operation, method, URL, status, time, attempts and, when the
 * service names request-id headers (ARM's `x-ms-request-id`), the id its answer carried (`-` if none).
 */
export function loggingStage(ctx: TransportContext): Stage {
  const names = ctx.requestIds.response;
  return {
    name: LOGGING_STAGE,
    send(req, next) {
      // Building the line redacts the URL (a URL parse): skip all of it when nobody reads debug lines,
      // and hand the call on as it is (no async wrapper: one promise and its microtasks less per request).
      if (ctx.logger.debugEnabled === false) return next(req);
      const started = Date.now();
      return next(req).then((raw) => {
        let id = "";
        if (names?.length) {
          const rid = readRequestId(raw.res.headers, names);
          id = `, ${rid?.header ?? names[0]} ${rid?.value ?? "-"}`;
        }
        ctx.logger.debug(`${ctx.describe(req)} -> ${raw.res.statusCode} in ${Date.now() - started} ms (attempts ${raw.attempts}${id})`);
        return raw;
      });
    },
  };
}
