import Ajv, { type ValidateFunction } from "ajv";
import { resolveThrottling, type ArmThrottle, type ThrottlingInput } from "./kit/arm-throttling";
import type { EmulatorReply } from "./kit/emulator-app";
import type { EmulatorSettings } from "./kit/local-service";
import { NO_FAULTS, type FaultConfig, type FaultInjector } from "./fault-injector";
import { INVALID } from "./http-body";
import type { RequestStats } from "./request-stats";
import { completeFaults, faultConfigSchema, settingsSchema } from "./seed";
import type { PersistedState, StateStore } from "./state-store";
import type { ChangeFeeds } from "./changes/change-feeds";
import type { AccessTokens } from "./kit/access-tokens";
import { DEFAULT_TENANT_ID, issueUserToken } from "./user-token";

/** Where the clock offset lives in the state, for the journal. */
export const CLOCK_PATH = ["emulator", "clockOffsetMs"] as const;

/** What the admin API reads and changes. */
export interface AdminParts {
  faults: FaultInjector;
  stats: RequestStats;
  settings: EmulatorSettings;
  state: PersistedState;
  store: StateStore;
  throttle: ArmThrottle;
  /** Signs the user tokens of `user-token`. */
  tokens?: AccessTokens;
  /** The change records' admin routes (`activity-log`, `event-subscriptions`). */
  changes?: Pick<ChangeFeeds, "admin">;
}

/** The admin API's answer to a request under `/_emulator/` (`body` parsed, or INVALID). */
export type AdminApi = (method: string, path: string, body: unknown) => EmulatorReply | Promise<EmulatorReply>;

/** The admin API (`/_emulator/stats`, `faults`, `settings`, `clock`): read and change the running emulator. */
export function adminApi(d: AdminParts): AdminApi {
  return (method, path, body) => {
    const b = (body && body !== INVALID && typeof body === "object" ? body : {}) as Record<string, unknown>;
    switch (`${method} ${path}`) {
      case "GET /_emulator/stats":
        return {
          status: 200,
          body: { ...d.stats, faultsInjected: d.faults.injectedCount, throttled: d.throttle.throttled, cpuMicros: cpuMicros() },
        };
      case "POST /_emulator/stats/reset":
        d.stats.total = 0;
        for (const k of Object.keys(d.stats.byRoute)) delete d.stats.byRoute[k];
        for (const k of Object.keys(d.stats.refusedByRoute)) delete d.stats.refusedByRoute[k];
        d.faults.resetInjectedCount();
        d.throttle.throttled = 0;
        return { status: 204 };
      case "GET /_emulator/faults":
        return { status: 200, body: d.faults.settings };
      case "PUT /_emulator/faults":
        return putFaults(d, body, b);
      case "GET /_emulator/settings":
        return { status: 200, body: d.settings };
      case "PUT /_emulator/settings":
        return putSettings(d, body, b);
      case "POST /_emulator/user-token":
        return userToken(d, b);
      case "POST /_emulator/clock":
        if (typeof b.advanceMs === "number") d.state.emulator.clockOffsetMs += b.advanceMs;
        d.store.changed(CLOCK_PATH);
        return { status: 200, body: { offsetMs: d.state.emulator.clockOffsetMs } };
      default:
        return (
          d.changes?.admin(method, path, body) ?? {
            status: 404,
            body: { error: { code: "NotFound", message: `no admin route ${method} ${path}` } },
          }
        );
    }
  };
}

function userToken(d: AdminParts, b: Record<string, unknown>): EmulatorReply {
  if (!d.tokens) return { status: 404, body: { error: { code: "NotFound", message: "no admin route POST /_emulator/user-token" } } };
  // The IMDS slice of the state names the estate's tenant (imds-local.ts); read loosely, as the admin API knows no service's types.
  const imds = d.state.services.imds as { tenantId?: string } | undefined;
  return issueUserToken(
    {
      tokens: d.tokens,
      tenantId: imds?.tenantId ?? DEFAULT_TENANT_ID,
      ttlSeconds: d.settings.tokenTtlSeconds,
      now: Date.now() + d.state.emulator.clockOffsetMs,
    },
    b,
  );
}

function putFaults(d: AdminParts, body: unknown, b: Record<string, unknown>): EmulatorReply {
  const problem = adminBodyProblem(validateFaults, body);
  if (problem) return { status: 400, body: { error: { code: "InvalidFaults", message: problem } } };
  d.faults.configure(completeFaults(b as Partial<FaultConfig>, NO_FAULTS));
  return { status: 200, body: d.faults.settings };
}

function putSettings(d: AdminParts, body: unknown, b: Record<string, unknown>): EmulatorReply {
  const problem = adminBodyProblem(validateSettings, body);
  if (problem) return { status: 400, body: { error: { code: "InvalidSettings", message: problem } } };
  if (typeof b.pageSize === "number") d.settings.pageSize = b.pageSize;
  if (typeof b.tokenTtlSeconds === "number") d.settings.tokenTtlSeconds = b.tokenTtlSeconds;
  if (b.throttling !== undefined) d.settings.throttling = resolveThrottling(b.throttling as ThrottlingInput);
  if (typeof b.activityLogCapacity === "number") d.settings.activityLogCapacity = b.activityLogCapacity;
  if (typeof b.activityLogPageSize === "number") d.settings.activityLogPageSize = b.activityLogPageSize;
  if (typeof b.eventGridRetryTimeScale === "number") d.settings.eventGridRetryTimeScale = b.eventGridRetryTimeScale;
  return { status: 200, body: d.settings };
}

const adminAjv = new Ajv({ allErrors: false, strict: false });
const validateFaults = adminAjv.compile(faultConfigSchema);
const validateSettings = adminAjv.compile(settingsSchema);

/** Why an admin request body is unacceptable, in one line, or undefined when it is fine. */
function adminBodyProblem(validate: ValidateFunction, body: unknown): string | undefined {
  if (body === INVALID) return "the body is not valid JSON";
  if (validate(body ?? {})) return undefined;
  const e = validate.errors![0];
  return `${e.instancePath || "body"}${e.keyword === "additionalProperties" ? `: unknown key "${String(e.params.additionalProperty)}"` : ` ${e.message ?? e.keyword}`}`;
}

/** CPU time this process has used, in microseconds (user + system): benches divide it by requests served. */
function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}
