import type { EmulatorReply, EmulatorRequest } from "./emulator-app";

/**
 * Resource Manager's request throttling, as "Understand how Azure Resource Manager throttles
 * requests" (learn.microsoft.com, azure-resource-manager/management/request-limits-and-throttling)
 * documents it since the 2024 migration to regional token buckets:
 *
 * | scope        | operations | bucket size | refill per second |
 * | subscription | reads      | 250         | 25                |
 * | subscription | deletes    | 200         | 10                |
 * | subscription | writes     | 200         | 10                |
 * | tenant       | reads      | 250         | 25                |
 * | tenant       | deletes    | 200         | 10                |
 * | tenant       | writes     | 200         | 10                |
 *
 * - Subscription limits apply per subscription, per service principal and per operation type.
 * - Global subscription limits, 15 times the service principal's, apply across all principals of a
 *   subscription. A request is throttled when either is exceeded.
 * - Every response says what remains: `x-ms-ratelimit-remaining-subscription-reads` (`-writes`,
 *   `-deletes`) and the `-global-` variants; tenant-level requests (no subscription in the path)
 *   `x-ms-ratelimit-remaining-tenant-reads` (`-writes`).
 * - An empty bucket gets 429 with `Retry-After` (seconds); a throttled request is not processed
 *   and consumes nothing.
 *
 * The refill here is continuous (fractional tokens; the headers show the whole tokens left), the
 * textbook token bucket the documentation links to. The principal is the token's `oid` claim.
 */
export interface BucketSettings {
  /** Tokens the bucket holds when full. */
  bucket: number;
  /** Tokens added per second, up to `bucket`. */
  refillPerSecond: number;
}

export interface ThrottlingSettings {
  reads: BucketSettings;
  writes: BucketSettings;
  deletes: BucketSettings;
  /** The global (all principals) subscription buckets are this many times a principal's. Default 15. */
  globalFactor: number;
}

/** The documented limits. */
export const ARM_THROTTLING: ThrottlingSettings = {
  reads: { bucket: 250, refillPerSecond: 25 },
  writes: { bucket: 200, refillPerSecond: 10 },
  deletes: { bucket: 200, refillPerSecond: 10 },
  globalFactor: 15,
};

/** The documented limits with every refill rate multiplied by `scale` (bucket sizes unchanged), to rehearse at scale in less time. */
export function scaledThrottling(scale: number, base: ThrottlingSettings = ARM_THROTTLING): ThrottlingSettings {
  const s = (b: BucketSettings): BucketSettings => ({ bucket: b.bucket, refillPerSecond: b.refillPerSecond * scale });
  return { reads: s(base.reads), writes: s(base.writes), deletes: s(base.deletes), globalFactor: base.globalFactor };
}

const bucketSchema = {
  type: "object",
  additionalProperties: false,
  required: ["bucket", "refillPerSecond"],
  properties: { bucket: { type: "integer", minimum: 1 }, refillPerSecond: { type: "number", exclusiveMinimum: 0 } },
} as const;

/**
 * JSON Schema of the `emulator.throttling` seed key (and settings body): `true` for the documented
 * limits, `false` for none (the default), or limits: any of `reads`, `writes`, `deletes`
 * (`{ bucket, refillPerSecond }`), `globalFactor`, and `refillScale`, which multiplies every refill rate.
 */
export const throttlingSchema = {
  oneOf: [
    { type: "boolean" },
    {
      type: "object",
      additionalProperties: false,
      properties: {
        reads: bucketSchema,
        writes: bucketSchema,
        deletes: bucketSchema,
        globalFactor: { type: "number", minimum: 1 },
        refillScale: { type: "number", exclusiveMinimum: 0 },
      },
    },
  ],
} as const;

/** What the seed key or the admin API may say. */
export type ThrottlingInput = boolean | (Partial<ThrottlingSettings> & { refillScale?: number });

/** Resolves the seed key to settings (undefined: off). */
export function resolveThrottling(input: ThrottlingInput | undefined): ThrottlingSettings | undefined {
  if (input === undefined || input === false) return undefined;
  if (input === true) return ARM_THROTTLING;
  const merged: ThrottlingSettings = {
    reads: input.reads ?? ARM_THROTTLING.reads,
    writes: input.writes ?? ARM_THROTTLING.writes,
    deletes: input.deletes ?? ARM_THROTTLING.deletes,
    globalFactor: input.globalFactor ?? ARM_THROTTLING.globalFactor,
  };
  return input.refillScale ? scaledThrottling(input.refillScale, merged) : merged;
}

type Kind = "reads" | "writes" | "deletes";
const VERB: Record<Kind, string> = { reads: "read", writes: "write", deletes: "delete" };

function kindOf(method: string): Kind {
  if (method === "GET" || method === "HEAD") return "reads";
  return method === "DELETE" ? "deletes" : "writes";
}

class Bucket {
  private tokens: number;
  private at: number;
  constructor(
    private readonly size: number,
    private readonly perMs: number,
    now: number,
  ) {
    this.tokens = size;
    this.at = now;
  }
  /** Tokens now (fractional), after the refill since the last look. */
  level(now: number): number {
    if (now > this.at) {
      this.tokens = Math.min(this.size, this.tokens + (now - this.at) * this.perMs);
      this.at = now;
    }
    return this.tokens;
  }
  take(): void {
    this.tokens -= 1;
  }
  /** Milliseconds until one whole token is there. */
  waitMs(now: number): number {
    return Math.max(0, (1 - this.level(now)) / this.perMs);
  }
}

/** What the throttle decided for one request: headers for its answer, or the 429 to send instead. */
export interface ThrottleVerdict {
  headers: Record<string, string>;
  /** Set when the request is throttled. */
  reply?: EmulatorReply;
}

/** ARM's throttling over the emulator's clock; `settings()` is read per request, so the admin API can turn it on and off. */
export class ArmThrottle {
  private readonly buckets = new Map<string, Bucket>();
  private current: ThrottlingSettings | undefined;
  /** Requests answered 429 by the throttle. */
  throttled = 0;

  constructor(private readonly settings: () => ThrottlingSettings | undefined) {}

  /** Decides one authenticated ARM request; undefined when throttling is off. */
  admit(req: Pick<EmulatorRequest, "method" | "path" | "headers" | "now">): ThrottleVerdict | undefined {
    const s = this.settings();
    if (s !== this.current) {
      // New limits: start from full buckets, as after a long pause.
      this.buckets.clear();
      this.current = s;
    }
    if (!s) return undefined;
    const kind = kindOf(req.method);
    const limits = s[kind];
    const claims = tokenClaims(req.headers.authorization);
    const principal = claims.oid ?? "anonymous";
    const subscription = /^\/subscriptions\/([^/]+)/i.exec(req.path)?.[1]?.toLowerCase();
    const now = req.now;
    if (!subscription) {
      const tenant = claims.tid ?? "tenant";
      const b = this.bucket(`t|${tenant}|${principal}|${kind}`, limits.bucket, limits.refillPerSecond, now);
      // The documentation lists tenant headers for reads and writes only.
      const header = kind === "deletes" ? undefined : `x-ms-ratelimit-remaining-tenant-${kind}`;
      if (b.level(now) < 1) {
        return this.refuse(
          header ? { [header]: "0" } : {},
          b.waitMs(now),
          "TenantRequestsThrottled",
          `Number of '${VERB[kind]}' requests for tenant '${tenant}' actor '${principal}' exceeded`,
        );
      }
      b.take();
      return { headers: header ? { [header]: String(Math.floor(b.level(now))) } : {} };
    }
    const mine = this.bucket(`s|${subscription}|${principal}|${kind}`, limits.bucket, limits.refillPerSecond, now);
    const all = this.bucket(`g|${subscription}|${kind}`, limits.bucket * s.globalFactor, limits.refillPerSecond * s.globalFactor, now);
    const mineLevel = mine.level(now);
    const allLevel = all.level(now);
    if (mineLevel < 1 || allLevel < 1) {
      const headers = {
        [`x-ms-ratelimit-remaining-subscription-${kind}`]: String(Math.max(0, Math.floor(mineLevel))),
        [`x-ms-ratelimit-remaining-subscription-global-${kind}`]: String(Math.max(0, Math.floor(allLevel))),
      };
      const global = allLevel < 1;
      return this.refuse(
        headers,
        Math.max(mine.waitMs(now), all.waitMs(now)),
        "SubscriptionRequestsThrottled",
        global
          ? `Number of '${VERB[kind]}' requests for subscription '${subscription}' exceeded the global limit across all actors`
          : `Number of '${VERB[kind]}' requests for subscription '${subscription}' actor '${principal}' exceeded`,
      );
    }
    mine.take();
    all.take();
    return {
      headers: {
        [`x-ms-ratelimit-remaining-subscription-${kind}`]: String(Math.floor(mineLevel - 1)),
        [`x-ms-ratelimit-remaining-subscription-global-${kind}`]: String(Math.floor(allLevel - 1)),
      },
    };
  }

  private bucket(key: string, size: number, perSecond: number, now: number): Bucket {
    let b = this.buckets.get(key);
    if (!b) {
      b = new Bucket(size, perSecond / 1000, now);
      this.buckets.set(key, b);
    }
    return b;
  }

  private refuse(headers: Record<string, string>, waitMs: number, code: string, what: string): ThrottleVerdict {
    this.throttled += 1;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    const all = { ...headers, "retry-after": String(seconds) };
    return {
      headers: all,
      reply: {
        status: 429,
        headers: all,
        body: {
          error: {
            code,
            message: `${what}. Please try again after '${seconds}' seconds after additional tokens are available. Refer to https://aka.ms/arm-throttling`,
          },
        },
      },
    };
  }
}

let lastAuthorization: string | undefined;
let lastClaims: { oid?: string; tid?: string } = {};

/** The `oid` and `tid` claims of the bearer token (already verified by the front door), without another signature check. */
function tokenClaims(authorization: string | undefined): { oid?: string; tid?: string } {
  // A client sends the same token for an hour: decode it once.
  if (authorization === lastAuthorization) return lastClaims;
  lastAuthorization = authorization;
  lastClaims = decodeClaims(authorization);
  return lastClaims;
}

function decodeClaims(authorization: string | undefined): { oid?: string; tid?: string } {
  const token = authorization?.slice(authorization.indexOf(" ") + 1);
  const payload = token?.split(".")[1];
  if (!payload) return {};
  try {
    const c = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { oid?: unknown; tid?: unknown };
    return { oid: typeof c.oid === "string" ? c.oid : undefined, tid: typeof c.tid === "string" ? c.tid : undefined };
  } catch {
    return {};
  }
}
