import type { EmulatorReply } from "../../kit/emulator-app";

/** At most `requests` requests per `perSeconds` seconds (a fixed window that starts with the first request). */
export interface Quota {
  requests: number;
  perSeconds: number;
}

/** A key the emulator accepts, with its own quota and the client addresses allowed to use it. */
export interface ApiKeyEntry {
  key: string;
  quota?: Quota;
  /** Client IP addresses allowed to use the key; any other gets the spec's 403. Default: any. */
  allowedIps?: string[];
}

/** Who may call the geocoding service, and how often. */
export interface KeyPolicy {
  /** Whether a request without `api_key` is refused (401). Always so when `apiKeys` is not empty. */
  requireKey: boolean;
  /** The accepted keys; empty means any key is accepted. */
  apiKeys: ApiKeyEntry[];
  /** The quota of keys not listed, and of callers without a key (counted per client address). */
  quota?: Quota;
}

export const quotaSchema = {
  type: "object",
  additionalProperties: false,
  required: ["requests", "perSeconds"],
  properties: { requests: { type: "integer", minimum: 0 }, perSeconds: { type: "number", exclusiveMinimum: 0 } },
} as const;

export const apiKeyEntrySchema = {
  type: "object",
  additionalProperties: false,
  required: ["key"],
  properties: {
    key: { type: "string", minLength: 1 },
    quota: quotaSchema,
    allowedIps: { type: "array", items: { type: "string", minLength: 1 } },
  },
} as const;

/**
 * The geocoding service's front door: the spec's 401 (no key, or a key that matches no
 * subscription), 403 (the key may not be used from this client address: another key will not
 * help) and 429 with `Retry-After` (the key's quota is spent). The key is never echoed back.
 */
export class KeyGate {
  private readonly windows = new Map<string, { start: number; count: number }>();

  /** The refusal for a request, or undefined when it may proceed (it is then counted against its quota). */
  check(policy: KeyPolicy, key: string | undefined, remoteAddress: string | undefined, now: number): EmulatorReply | undefined {
    const listed = policy.apiKeys.length > 0;
    if (!key) {
      if (listed || policy.requireKey) return refuse(401, "Need auth: the api_key parameter is missing.");
    }
    const entry = key ? policy.apiKeys.find((e) => e.key === key) : undefined;
    if (key && listed && !entry) return refuse(401, "Need auth: the API key is wrong or does not correspond to any subscription.");
    const client = normalizeIp(remoteAddress);
    if (entry?.allowedIps && !entry.allowedIps.some((ip) => normalizeIp(ip) === client)) {
      return refuse(403, `Unauthorized (auth will change nothing): your IP ${client ?? "(unknown)"} is not allowed for this key.`);
    }
    const quota = entry?.quota ?? policy.quota;
    if (!quota) return undefined;
    const bucket = key ? `key:${key}` : `ip:${client ?? "?"}`;
    const periodMs = quota.perSeconds * 1000;
    let w = this.windows.get(bucket);
    if (!w || now - w.start >= periodMs) {
      w = { start: now, count: 0 };
      this.windows.set(bucket, w);
    }
    if (w.count >= quota.requests) {
      const waitS = Math.max(1, Math.ceil((w.start + periodMs - now) / 1000));
      return {
        status: 429,
        headers: { "retry-after": String(waitS) },
        body: {
          error: `Too many requests: the quota of ${quota.requests} requests per ${quota.perSeconds} s is spent; retry in ${waitS} s.`,
        },
      };
    }
    w.count += 1;
    return undefined;
  }
}

function refuse(status: number, message: string): EmulatorReply {
  return { status, body: { error: message } };
}

/** `::ffff:127.0.0.1` is 127.0.0.1. */
function normalizeIp(ip: string | undefined): string | undefined {
  return ip?.replace(/^::ffff:/i, "");
}
