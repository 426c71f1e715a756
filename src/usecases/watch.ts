import { dirname, resolve } from "node:path";
import type { ClientSet } from "../clients/client-set";
import { ChangeQueue } from "../domain/changes/change-queue";
import type { ChangeRecord } from "../domain/changes/change-record";
import type { LeaderView } from "../domain/state/leader-lease";
import type { StackConfig } from "../domain/stack/stack-config";
import type { StateStores } from "../domain/state/state-ports";
import { headCommit } from "../platform/programs/git-checkout";
import { ChangeFeed } from "./change-feed";
import { startChangePolling } from "./change-polling";
import { OrderedWrites } from "./ordered-writes";
import type { Readiness, WatchSurface } from "./watch-ports";
import { WatchReplica } from "./watch-replica";
import { describeSchedule, type Schedule } from "./watch-schedule";
import { Watcher, type WatchGit } from "./watcher";

/** One stack the watcher reconciles: its name, how its file is read, and the file to show. */
export interface WatchedStack {
  name: string;
  /** The stack file as people see it (relative to the working directory when inside it). */
  file: string;
  /** Reads and validates the stack file (every tick: edits and new commits are picked up). */
  load: () => StackConfig;
}

/** One watch process: what it watches, how it ticks, and with what it reads and writes. */
export interface WatchRequest {
  stacks: readonly WatchedStack[];
  /** The lease its replicas share: one leader per group of stacks (`watch-dev`, `watch-all`). */
  group: string;
  schedule: Schedule;
  /** Follow a git branch (the stack files are its checkout's). */
  git?: WatchGit;
  clients: ClientSet;
  state: StateStores;
  /** The directory the stack files' paths are relative to. */
  cwd: string;
  autoApply: boolean;
  autoRemediate: boolean;
  /** How long an apply waits for a held stack lock, in ms. */
  lockTimeoutMs: number;
  /** After a stop, how long a running apply may go on, in ms. */
  graceMs: number;
  /** Stop after this many ticks of each stack. */
  maxTicks?: number;
  concurrency: number;
  scanTimeoutMs: number;
  pollIntervalMs: number;
  /** Change records: the Activity Log read every `intervalMs`; absent: only the sweeps (changes off). */
  changes?: ChangeSettings;
  /** How often a standby campaigns and follows the leader's statuses, in ms. Default 1000. */
  campaignMs?: number;
  log: (line: string) => void;
}

/** How change records drive re-reads. */
export interface ChangeSettings {
  /** How often the Activity Log is read, in ms. */
  intervalMs: number;
  /** How long a watcher waits after changes arrive before reading: writes that come together are read together. */
  debounceMs: number;
  /** Distinct changed resources a watcher queues before it sweeps its stack instead. */
  queueCapacity: number;
}

/** A watch process, set up and not yet campaigning: what the server shows, and how it runs and stops. */
export interface WatchProcess {
  /** /readyz: a leader is ready when every stack's last tick is; a standby is ready. */
  readiness(): Readiness;
  /** This replica's role and the leader (`/api/v1/replica`). */
  replica(): Promise<LeaderView>;
  /**
   * Takes change records pushed to it (Event Grid): the count of new ones, or undefined on a standby
   * (it refuses them, so that they are delivered again, to the leader).
   */
  acceptChanges(records: readonly ChangeRecord[]): number | undefined;
  /** Asks the process to stop (a signal, the parent gone); the first reason wins. */
  stop(reason: string): void;
  /** Campaigns, leads or stands by until a stop is asked, then ends its work; resolves to the ticks run. */
  run(): Promise<number>;
}

/**
 * Sets up one replica of the watcher: its statuses and metrics (the surface the interfaces give,
 * its writes fenced by this replica's lease), the change feed, and the replica that campaigns for
 * the group's lease. Replicas sharing a state store elect a leader per group of stacks: the leader
 * ticks, applies and sends events; the others stand by, serving the page, the API and /metrics from
 * the shared statuses, and take over when the leader's lease lapses. `run()` starts it.
 */
export async function openWatch<S extends WatchSurface>(
  req: WatchRequest,
  surfaceOf: (writes: OrderedWrites) => Promise<S>,
): Promise<WatchProcess & { surface: S }> {
  const leading: { replica?: WatchReplica } = {};
  // Statuses and events are written only while this replica leads (the fence: its lease).
  const writes = new OrderedWrites(req.log, () => leading.replica!.check());
  const surface = await surfaceOf(writes);
  for (const st of req.stacks) surface.meter.addStack(st.name);
  const feed = req.changes
    ? new ChangeFeed({
        clients: req.clients,
        subscriptions: () => subscriptionsOf(req.stacks),
        counted: (r, result) => surface.meter.changeRecords.inc({ source: r.attribution.source, result }),
      })
    : undefined;
  const stop = stopSignal();
  const terms: Terms = { ticks: 0, watchers: [] };
  const replica = (leading.replica = new WatchReplica({
    locks: req.state.locks,
    group: req.group,
    statuses: surface.statuses,
    lead: () => leadTerm(req, { surface, writes, feed }, terms, stop.request),
    onRole: (role, leader) => surface.statuses.role(role, leader),
    log: req.log,
    retryMs: req.campaignMs,
  }));
  return {
    surface,
    // A standby is ready: it serves the page and the API, and stands by to take over.
    readiness: () => (replica.leading ? readinessOf(terms.watchers) : { ready: true, reason: "standing by (another replica leads)" }),
    replica: () => replica.view(),
    acceptChanges: (records) => (replica.leading === false ? undefined : (feed?.accept(records) ?? 0)),
    stop: stop.request,
    run: async () => {
      try {
        await replica.start();
        await replica.stop(await stop.requested);
      } finally {
        await writes.flushed();
        await surface.close();
      }
      return terms.ticks;
    },
  };
}

/** The watchers of the current term, and the ticks of the terms that ended. */
interface Terms {
  ticks: number;
  watchers: Watcher[];
}

/** What every term of leadership works with. */
interface TermParts {
  surface: WatchSurface;
  writes: OrderedWrites;
  feed: ChangeFeed | undefined;
}

/** A stop asked once (a signal, the parent gone, --max-ticks done), with its reason. */
function stopSignal(): { request: (reason: string) => void; requested: Promise<string> } {
  let request: (reason: string) => void = () => {};
  const requested = new Promise<string>((resolve) => (request = resolve));
  return { request, requested };
}

/**
 * One term of leadership: the stacks registered, the events opened (what a previous leader left
 * pending goes out, with the same webhook-id), a watcher per stack following the change feed.
 * Returns what ends the term: the watchers stop (a running apply within its grace period), the
 * polling stops, the events of the last ticks get a few seconds to go out, the rest stays pending.
 */
async function leadTerm(
  req: WatchRequest,
  parts: TermParts,
  terms: Terms,
  requestStop: (reason: string) => void,
): Promise<(reason: string) => Promise<void>> {
  const { surface } = parts;
  for (const st of req.stacks) surface.statuses.register(st.name, { file: st.file, schedule: describeSchedule(req.schedule) });
  const events = await surface.events?.open();
  const previous = new Map(terms.watchers.map((w) => [w.stackName, w]));
  const watchers = req.stacks.map((st) => watcherFor(st, req, parts));
  for (const w of watchers) w.carryOver(previous.get(w.stackName));
  terms.watchers = watchers;
  const stopPolling = followChanges(watchers, req, parts.feed);
  // Each stack ticks on its own: ticks of different stacks overlap, those of one never do.
  const running = Promise.all(watchers.map((w) => w.run())).then(() => {
    if (req.maxTicks !== undefined) requestStop(`${req.maxTicks} tick(s) done (--max-ticks)`);
  });
  return async (reason) => {
    for (const w of watchers) w.stop(reason);
    await running;
    await stopPolling();
    terms.ticks += watchers.reduce((n, w) => n + w.ticks, 0);
    await events?.close();
  };
}

/** Each watcher's queue fed by the change feed (it is nudged when changes come), and the Activity Log pulled; returns what stops the pulls. */
function followChanges(watchers: readonly Watcher[], req: WatchRequest, feed: ChangeFeed | undefined): () => Promise<void> {
  if (!feed || !req.changes) return async () => {};
  const unsubscribe = watchers.map((w) => feed.subscribe(w.changeQueue!, () => w.nudge()));
  const stop = startChangePolling(feed, req.changes.intervalMs, req.log);
  return async () => {
    await stop();
    for (const u of unsubscribe) u();
  };
}

/** The subscriptions the watched stacks use (a stack file that cannot be read names none; its ticks say why). */
function subscriptionsOf(stacks: readonly WatchedStack[]): string[] {
  return stacks.flatMap((st) => {
    try {
      // Its own, those its protectors' vaults may live in and its scope's: their changes are in scope too.
      const stack = st.load();
      return [stack.subscriptionId, ...(stack.keyVaultSubscriptions ?? []), ...(stack.scope?.subscriptions ?? [])];
    } catch {
      return [];
    }
  });
}

/** One stack's watcher, reporting to the surface's metrics and its stack's status. */
function watcherFor(st: WatchedStack, req: WatchRequest, parts: TermParts): Watcher {
  const many = req.stacks.length > 1;
  return new Watcher({
    stackName: st.name,
    loadStack: st.load,
    schedule: req.schedule,
    clients: req.clients,
    cwd: req.cwd,
    state: req.state,
    git: req.git,
    commitOf: () => headCommit(dirname(resolve(req.cwd, st.file))),
    autoApply: req.autoApply,
    autoRemediate: req.autoRemediate,
    lockTimeoutMs: req.lockTimeoutMs,
    graceMs: req.graceMs,
    maxTicks: req.maxTicks,
    concurrency: req.concurrency,
    scanTimeoutMs: req.scanTimeoutMs,
    pollIntervalMs: req.pollIntervalMs,
    metrics: parts.surface.meter,
    status: parts.surface.statuses.reporter(st.name),
    changes:
      parts.feed && req.changes ? { queue: new ChangeQueue(req.changes.queueCapacity), debounceMs: req.changes.debounceMs } : undefined,
    fence: () => parts.writes.fenced(),
    log: many ? (line) => req.log(`[${st.name}] ${line}`) : req.log,
  });
}

/** /readyz of the whole watcher: ready when every stack's last tick is; otherwise the first stack that is not, named. */
function readinessOf(watchers: readonly Watcher[]): Readiness {
  const states = watchers.map((w) => ({ name: w.stackName, r: w.readiness() }));
  const notReady = states.find((s) => !s.r.ready);
  if (notReady) return { ready: false, reason: watchers.length > 1 ? `${notReady.name}: ${notReady.r.reason}` : notReady.r.reason };
  return watchers.length > 1 ? { ready: true, reason: `all ${watchers.length} stacks ready` } : states[0].r;
}
