import type { Stage } from "../pipeline";
import type { TransportContext } from "../transport-context";

export const LOGGING_STAGE = "logging";

/** A debug line per call, redacted: operation, method, URL, status, time, attempts and the service's request id. */
export function loggingStage(ctx: TransportContext): Stage {
  return {
    name: LOGGING_STAGE,
    async send(req, next) {
      // Building the line redacts the URL (a URL parse): skip all of it when nobody reads debug lines.
      if (ctx.logger.debugEnabled === false) return next(req);
      const started = Date.now();
      const raw = await next(req);
      const rid = raw.res.headers["x-ms-request-id"];
      ctx.logger.debug(
        `${ctx.describe(req)} -> ${raw.res.statusCode} in ${Date.now() - started} ms (attempts ${raw.attempts}, x-ms-request-id ${(Array.isArray(rid) ? rid[0] : rid) ?? "-"})`,
      );
      return raw;
    },
  };
}
