import Ajv from "ajv";
import type { AccessTokens } from "../kit/access-tokens";
import { armRoute } from "../kit/arm-conventions";
import type { ArmThrottle } from "../kit/arm-throttling";
import type { EmulatorApp, EmulatorReply } from "../kit/emulator-app";
import type { EmulatorSettings } from "../kit/local-service";
import type { FaultInjector } from "../fault-injector";
import { INVALID } from "../http-body";
import { ActivityLog, DEFAULT_ACTIVITY_LOG_CAPACITY } from "./activity-log";
import { publishedOperation } from "../kit/published-operations";
import { ACTIVITY_LOG_PATH, DEFAULT_ACTIVITY_LOG_PAGE_SIZE, listActivityLog } from "./activity-log-route";
import { ChangeRecorder } from "./change-recorder";
import { EventGrid } from "./event-grid/event-grid";
import { KeyExpiryWatch } from "./event-grid/key-vault-events";
import type { KeyVaultState } from "../services/keyvault/keyvault-state";
import { eventSubscriptionSchema, type EventGridSeed, type EventSubscriptionSpec } from "./event-grid/event-subscription";

/** The emulator's records of what it serves: its Activity Log, Event Grid, and the recorder every ARM route writes through. */
export interface ChangeFeeds {
  activityLog: ActivityLog;
  eventGrid: EventGrid;
  recorder: ChangeRecorder;
  /** The admin routes of the change records (under `/_emulator/`), or undefined for another path. */
  admin(method: string, path: string, body: unknown): EmulatorReply | Promise<EmulatorReply> | undefined;
  /** Forgets every record and pending delivery (the admin reset); subscriptions stay. */
  reset(): void;
  /** Subscribes the seed's webhooks, once the emulator listens (their validation URLs name it). */
  start(): void;
  /** Stops pending deliveries (the emulator closes). */
  close(): void;
}

const ADMIN_LOG = "/_emulator/activity-log";
/** How often the keys' expiry is compared with the emulator's clock (which the admin API can move). */
const KEY_SWEEP_MS = 500;
const ADMIN_SUBS = "/_emulator/event-subscriptions";
const validateSubscription = new Ajv({ strict: false }).compile(eventSubscriptionSchema);

/**
 * Builds the change records, mounts the Activity Log's list (ActivityLogs_List) as an ARM route,
 * and keeps the seed's Event Grid webhooks for `start` (their handshakes run in the background; a
 * delivery waits for its subscription's).
 */
export function mountChangeFeeds(d: {
  app: EmulatorApp;
  tokens: AccessTokens;
  throttle: ArmThrottle;
  settings: EmulatorSettings;
  faults: FaultInjector;
  now: () => number;
  baseUrl: () => string;
  seed?: EventGridSeed;
  /** The Key Vault service's state, whose keys' expiry gives Key Vault events. */
  keyVaults?: () => KeyVaultState | undefined;
}): ChangeFeeds {
  const activityLog = new ActivityLog(() => d.settings.activityLogCapacity ?? DEFAULT_ACTIVITY_LOG_CAPACITY);
  const recorder = new ChangeRecorder(activityLog, d.faults, d.now);
  const eventGrid = new EventGrid(d.faults, () => d.settings.eventGridRetryTimeScale ?? 1, d.baseUrl);
  recorder.onWriteSucceeded((w, _reply, at) => eventGrid.publish(w, at));
  const operation = publishedOperation("Microsoft.Insights", "ActivityLogs_List");
  d.app.route(
    "GET",
    ACTIVITY_LOG_PATH,
    armRoute((req) => listActivityLog(req, activityLog, d.settings.activityLogPageSize ?? DEFAULT_ACTIVITY_LOG_PAGE_SIZE), {
      apiVersions: operation.apiVersions,
      tokens: d.tokens,
      throttle: d.throttle,
    }),
    { operation },
  );
  const keys = new KeyExpiryWatch(d.keyVaults ?? (() => undefined));
  let keyTimer: NodeJS.Timeout | undefined;
  const reset = () => {
    activityLog.clear();
    recorder.reset();
    eventGrid.reset();
  };
  const feeds: ChangeFeeds = {
    activityLog,
    eventGrid,
    recorder,
    reset,
    start: () => {
      for (const s of d.seed?.subscriptions ?? []) void eventGrid.subscribe(s);
      keys.due(d.now()); // what is due already happened before anyone subscribed
      keyTimer = setInterval(() => keys.due(d.now()).forEach((e) => eventGrid.publishEvent(e)), KEY_SWEEP_MS);
      keyTimer.unref();
    },
    close: () => {
      clearInterval(keyTimer);
      recorder.reset();
      eventGrid.close();
    },
    admin: (method, path, body) => changesAdmin(feeds, method, path, body),
  };
  return feeds;
}

/**
 * `GET /_emulator/activity-log` (every entry, newest first), `DELETE` it (reset the change records);
 * `GET /_emulator/event-subscriptions`, `PUT …/{name}` (subscribe; answers once the handshake is
 * over, with `validated`), `DELETE …/{name}`, and `GET …/{name}/validate/{code}` (the validationUrl).
 */
function changesAdmin(f: ChangeFeeds, method: string, path: string, body: unknown): EmulatorReply | Promise<EmulatorReply> | undefined {
  if (path === ADMIN_LOG) {
    if (method === "GET") return { status: 200, body: { count: f.activityLog.count, value: f.activityLog.all().map((s) => s.entry) } };
    if (method === "DELETE") {
      f.reset();
      return { status: 204 };
    }
    return undefined;
  }
  if (path === ADMIN_SUBS && method === "GET") return { status: 200, body: { value: f.eventGrid.views() } };
  if (!path.startsWith(`${ADMIN_SUBS}/`)) return undefined;
  const [name, verb, code] = path
    .slice(ADMIN_SUBS.length + 1)
    .split("/")
    .map(decodeSegment);
  if (verb === "validate" && method === "GET") {
    const v = f.eventGrid.validate(name, code ?? "");
    return v ? { status: 200, body: v } : notFound(`no event subscription ${name} awaits the validation code ${code}`);
  }
  if (verb !== undefined) return undefined;
  if (method === "DELETE") return f.eventGrid.unsubscribe(name) ? { status: 204 } : notFound(`no event subscription ${name}`);
  if (method !== "PUT") return undefined;
  const spec = { ...(body && body !== INVALID && typeof body === "object" ? body : {}), name };
  if (!validateSubscription(spec)) {
    const e = validateSubscription.errors![0];
    return {
      status: 400,
      body: { error: { code: "InvalidEventSubscription", message: `${e.instancePath || "body"} ${e.message ?? e.keyword}` } },
    };
  }
  return f.eventGrid.subscribe(spec as EventSubscriptionSpec).then((view) => ({ status: 200, body: view }));
}

/** A path segment decoded; a malformed escape is kept as sent (and then names no subscription). */
function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function notFound(message: string): EmulatorReply {
  return { status: 404, body: { error: { code: "NotFound", message } } };
}
