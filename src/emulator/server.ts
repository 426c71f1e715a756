import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { redactUrl } from "../platform/redaction";
import { adminApi, CLOCK_PATH } from "./admin-api";
import { FaultInjector, NO_FAULTS, type FaultConfig } from "./fault-injector";
import { mountChangeFeeds, type ChangeFeeds } from "./changes/change-feeds";
import { AccessTokens } from "./kit/access-tokens";
import type { KeyVaultState } from "./services/keyvault/keyvault-state";
import { armRoute } from "./kit/arm-conventions";
import type { PublishedOperation } from "./kit/published-operations";
import { inVersionShape } from "./kit/shaped-replies";
import { ArmThrottle, resolveThrottling, type ThrottlingInput } from "./kit/arm-throttling";
import { EmulatorApp, type RouteInfo } from "./kit/emulator-app";
import type { EmulatorSettings, LocalService, ServiceContext } from "./kit/local-service";
import { send } from "./reply-writer";
import { dispatch, type DispatchParts } from "./request-dispatch";
import type { RequestStats } from "./request-stats";
import { completeFaults, type SeedDocument } from "./seed";
import { LOCAL_SERVICES } from "./services";
import { StateStore, type PersistedState } from "./state-store";

export type { RequestStats } from "./request-stats";

export interface EmulatorOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  seed?: SeedDocument;
  /** Directory to persist state in; state found there wins over the seed. */
  stateDir?: string;
  /** Overrides of the seed's `emulator` section (`throttling` as the seed key says it, or resolved settings). */
  settings?: Partial<Omit<EmulatorSettings, "throttling">> & { throttling?: ThrottlingInput | EmulatorSettings["throttling"] };
  /** Overrides of the seed's `faults` section. */
  faults?: Partial<FaultConfig>;
  services?: readonly LocalService[];
  /** Where unexpected handler errors are reported. Default stderr. */
  onError?: (line: string) => void;
}

export interface RunningEmulator {
  /** `http://host:port` */
  url: string;
  port: number;
  settings: EmulatorSettings;
  faults: FaultInjector;
  store: StateStore;
  stats: RequestStats;
  tokens: AccessTokens;
  /** Resource Manager's throttling (on when `settings.throttling` is set). */
  throttle: ArmThrottle;
  /** What the emulator records of the writes it serves: its Activity Log (and Event Grid's deliveries). */
  changes: ChangeFeeds;
  /** Every route it serves, with the published ARM operation of each ARM route. */
  routes(): readonly RouteInfo[];
  /** The emulator's clock: real time plus the offset set through the admin API. */
  now(): number;
  advanceClock(ms: number): void;
  close(): Promise<void>;
}

/** Starts the emulator: every local service on one port, with ARM's conventions, faults and persistence. */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const services = opts.services ?? LOCAL_SERVICES;
  const seed = opts.seed ?? {};
  const { state, store, tokens } = openState(services, seed, opts.stateDir);
  const settings = emulatorSettings(opts, seed);
  const throttle = new ArmThrottle(() => settings.throttling);
  const faults = new FaultInjector(completeFaults({ ...seed.faults, ...stripUndefined(opts.faults ?? {}) }, NO_FAULTS));
  const stats: RequestStats = { total: 0, byRoute: {}, refusedByRoute: {} };
  const now = () => Date.now() + state.emulator.clockOffsetMs;
  const app = new EmulatorApp();
  const report = opts.onError ?? ((line: string) => process.stderr.write(`${line}\n`));
  let baseUrl = "";
  const changes = mountChangeFeeds({
    app,
    tokens,
    throttle,
    settings,
    faults,
    now,
    baseUrl: () => baseUrl,
    seed: seed.eventGrid,
    keyVaults: () => state.services.keyvault as KeyVaultState | undefined,
  });
  mountServices(services, { app, state, store, tokens, settings, throttle, changes });

  const admin = adminApi({ faults, stats, settings, state, store, throttle, changes, tokens });
  const parts: DispatchParts = { app, services, faults, stats, admin, now, baseUrl: () => baseUrl };
  const server: Server = createServer((req, res) => {
    dispatch(parts, req, res).catch((e: unknown) => failed(report, req, res, e));
  });
  server.keepAliveTimeout = 15_000;
  const { url, port } = await listen(server, opts.port ?? 0, opts.host ?? "127.0.0.1");
  baseUrl = url;
  changes.start();

  return {
    url,
    port,
    settings,
    faults,
    store,
    stats,
    tokens,
    throttle,
    changes,
    routes: () => app.routes(),
    now,
    advanceClock(ms) {
      state.emulator.clockOffsetMs += ms;
      store.changed(CLOCK_PATH);
    },
    close: () =>
      new Promise<void>((resolve) => {
        store.close();
        changes.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The emulator's state: loaded from `stateDir` when it holds one (state found there wins over the
 * seed), each service missing from it built from its seed section, and snapshotted at once.
 */
function openState(
  services: readonly LocalService[],
  seed: SeedDocument,
  stateDir: string | undefined,
): { state: PersistedState; store: StateStore; tokens: AccessTokens } {
  if (stateDir) StateStore.sweep(stateDir);
  const persisted = stateDir ? StateStore.load(stateDir) : undefined;
  const state: PersistedState = persisted ?? { version: 1, emulator: { tokenKey: "", clockOffsetMs: 0 }, services: {} };
  const tokens = AccessTokens.fromKey(state.emulator.tokenKey || undefined);
  state.emulator.tokenKey = tokens.keyHex;
  for (const s of services) {
    if (!(s.name in state.services)) state.services[s.name] = s.initialState(seed[s.name]);
  }
  const store = new StateStore(state, stateDir);
  // A fresh snapshot at start: the seed's services, or the loaded state with its journal folded in.
  // Written now, not at the end of the turn: the emulator announces its URL before that turn ends,
  // and a kill right after the announcement must still find a state to restart from.
  store.changed();
  store.flush();
  return { state, store, tokens };
}

/** The settings: the options' overrides, else the seed's `emulator` section, else the defaults. */
function emulatorSettings(opts: EmulatorOptions, seed: SeedDocument): EmulatorSettings {
  return {
    pageSize: opts.settings?.pageSize ?? seed.emulator?.pageSize ?? 100,
    tokenTtlSeconds: opts.settings?.tokenTtlSeconds ?? seed.emulator?.tokenTtlSeconds ?? 3600,
    throttling: resolveThrottling((opts.settings?.throttling ?? seed.emulator?.throttling) as ThrottlingInput | undefined),
    activityLogCapacity: opts.settings?.activityLogCapacity ?? seed.emulator?.activityLogCapacity,
    activityLogPageSize: opts.settings?.activityLogPageSize ?? seed.emulator?.activityLogPageSize,
    eventGridRetryTimeScale: opts.settings?.eventGridRetryTimeScale ?? seed.emulator?.eventGridRetryTimeScale,
  };
}

/** Mounts every service on the app, each with its own slice of the state and ARM's conventions at hand. */
function mountServices(
  services: readonly LocalService[],
  d: {
    app: EmulatorApp;
    state: PersistedState;
    store: StateStore;
    tokens: AccessTokens;
    settings: EmulatorSettings;
    throttle: ArmThrottle;
    changes: ChangeFeeds;
  },
): void {
  const { app, state, store, tokens, settings, throttle, changes } = d;
  for (const s of services) {
    const ctx: ServiceContext<unknown> = {
      state: () => state.services[s.name],
      changed: (...path) => store.changed(["services", s.name, ...path]),
      tokens,
      settings,
      app,
      arm: (method, path, operation, handler) => {
        const op = isPublished(operation) ? operation : undefined;
        const apiVersions = op ? op.apiVersions : (operation as readonly string[]);
        const shaped = op ? inVersionShape(handler, op) : handler;
        app.route(
          method,
          path,
          armRoute(shaped, { apiVersions, tokens, throttle, changes: changes.recorder }),
          op ? { operation: op } : {},
        );
      },
    };
    s.mount(ctx);
  }
}

function isPublished(o: PublishedOperation | readonly string[]): o is PublishedOperation {
  return !Array.isArray(o);
}

/** A handler failed unexpectedly: reported (URL redacted), answered 500 when nothing was sent yet, else the connection is cut. */
function failed(report: (line: string) => void, req: IncomingMessage, res: ServerResponse, e: unknown): void {
  // The URL is redacted: a query may carry a key (the geocoding service's api_key).
  report(
    `emulator: ${req.method} ${redactUrl(`http://emulator${req.url ?? "/"}`).slice("http://emulator".length)}: ${(e as Error).stack ?? String(e)}`,
  );
  if (!res.headersSent)
    send(res, { status: 500, body: { error: { code: "InternalServerError", message: "The emulator failed to handle the request." } } }, [
      "x-ms-request-id",
      randomUUID(),
    ]);
  else res.destroy();
}

/** Listens on host:port (0: a free port) and gives the address clients use. */
async function listen(server: Server, port: number, host: string): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return { url: `http://${shown}:${addr.port}`, port: addr.port };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
