import type { AccessTokens } from "../kit/access-tokens";
import { armRoute } from "../kit/arm-conventions";
import type { ArmThrottle } from "../kit/arm-throttling";
import type { EmulatorApp, EmulatorReply } from "../kit/emulator-app";
import type { EmulatorSettings } from "../kit/local-service";
import type { FaultInjector } from "../fault-injector";
import { ActivityLog, DEFAULT_ACTIVITY_LOG_CAPACITY } from "./activity-log";
import { ACTIVITY_LOG_API_VERSIONS, ACTIVITY_LOG_PATH, DEFAULT_ACTIVITY_LOG_PAGE_SIZE, listActivityLog } from "./activity-log-route";
import { ChangeRecorder } from "./change-recorder";

/** The emulator's records of what it serves: its Activity Log, and the recorder every ARM route writes through. */
export interface ChangeFeeds {
  activityLog: ActivityLog;
  recorder: ChangeRecorder;
  /** The admin routes of the change records (under `/_emulator/`), or undefined for another path. */
  admin(method: string, path: string, body: unknown): EmulatorReply | Promise<EmulatorReply> | undefined;
  /** Forgets every record (the admin reset). */
  reset(): void;
  /** Stops what is pending (the emulator closes). */
  close(): void;
}

const ADMIN_LOG = "/_emulator/activity-log";

/** Builds the change records and mounts the Activity Log's list (ActivityLogs_List) as an ARM route. */
export function mountChangeFeeds(d: {
  app: EmulatorApp;
  tokens: AccessTokens;
  throttle: ArmThrottle;
  settings: EmulatorSettings;
  faults: FaultInjector;
  now: () => number;
  baseUrl: () => string;
}): ChangeFeeds {
  const activityLog = new ActivityLog(() => d.settings.activityLogCapacity ?? DEFAULT_ACTIVITY_LOG_CAPACITY);
  const recorder = new ChangeRecorder(activityLog, d.faults, d.now);
  d.app.route(
    "GET",
    ACTIVITY_LOG_PATH,
    armRoute((req) => listActivityLog(req, activityLog, d.settings.activityLogPageSize ?? DEFAULT_ACTIVITY_LOG_PAGE_SIZE), {
      apiVersions: ACTIVITY_LOG_API_VERSIONS,
      tokens: d.tokens,
      throttle: d.throttle,
    }),
  );
  const reset = () => {
    activityLog.clear();
    recorder.reset();
  };
  const feeds: ChangeFeeds = {
    activityLog,
    recorder,
    reset,
    close: () => recorder.reset(),
    admin: (method, path) => changesAdmin(feeds, method, path),
  };
  return feeds;
}

/** `GET /_emulator/activity-log` (every entry, newest first), `DELETE` it (reset the change records). */
function changesAdmin(f: ChangeFeeds, method: string, path: string): EmulatorReply | undefined {
  if (path !== ADMIN_LOG) return undefined;
  if (method === "GET") return { status: 200, body: { count: f.activityLog.count, value: f.activityLog.all().map((s) => s.entry) } };
  if (method === "DELETE") {
    f.reset();
    return { status: 204 };
  }
  return undefined;
}
