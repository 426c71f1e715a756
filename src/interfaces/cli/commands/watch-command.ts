import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { InvalidArgumentError, Option, type Command } from "commander";
import { type StackConfig } from "../../../domain/stack/stack-config";
import { loadStackFile } from "../../../usecases/stack-file";
import { stackFilePath } from "../../../platform/files/stack-files";
import type { ChangeRecord } from "../../../domain/changes/change-record";
import { formatDuration } from "../../../platform/duration";
import { currentBranch } from "../../../platform/programs/git-checkout";
import { openWatch, type WatchedStack, type WatchProcess } from "../../../usecases/watch";
import { cronSchedule, describeSchedule, type Schedule } from "../../../usecases/watch-schedule";
import type { WatchGit } from "../../../usecases/watcher";
import { listStacks } from "../../gitops/stack-listing";
import { parseNotifySecret } from "../../watch/events/notify-secret";
import { AzureEventsRoute } from "../../watch/server/azure-events-route";
import { parseListen, startWatchServer } from "../../watch/watch-server";
import { openWatchSurface, type OpenedWatchSurface } from "../../watch/watch-surface";
import { UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";
import { onStopRequest } from "../stop-request";
import { durationOption, withOperationOptions, type OperationFlags } from "../operation-options";
import { intOption } from "../option-parsers";
import { stateStoresFor } from "../state-stores";
import { STACKS_DIR_OPTION } from "../stack-options";
import { serviceClients } from "../service-clients";

interface WatchFlags extends OperationFlags {
  stack: string[];
  config?: string;
  stacksDir?: string;
  all?: boolean;
  interval?: number;
  schedule?: string;
  listen?: { host: string; port: number };
  statusToken?: string;
  notify: string[];
  git?: string;
  gitRemote: string;
  gitBranch?: string;
  autoApply?: boolean;
  autoRemediate?: boolean;
  grace: number;
  maxTicks?: number;
  concurrency: number;
  scanTimeout: number;
  pollInterval: number;
  changes: "on" | "off";
  changesInterval: number;
  events?: boolean;
  eventsSecretEnv?: string;
}

/**
 * The full sweep's default period. With change records driving targeted re-reads (--changes), the
 * sweep is the safety net for what records miss, not the way drift is found: an hour keeps its
 * reads (every database of every stack) from spending the subscription's read budget, while what
 * Azure records is seen within --changes-interval. With --changes off the schedule is the only way.
 */
const DEFAULT_INTERVAL_MS = 60 * 60_000;
/** The sweep's default period when no change records are read (--changes off): drift is found only by it. */
const DEFAULT_INTERVAL_WITHOUT_CHANGES_MS = 5 * 60_000;
const DEFAULT_CHANGES_INTERVAL_MS = 30_000;
/** How long a watcher waits after changes arrive before reading: writes that come together are read together. */
const CHANGES_DEBOUNCE_MS = 500;
/** Distinct changed resources a watcher queues before it sweeps its stack instead. */
const CHANGE_QUEUE_CAPACITY = 1_000;

/** Registers `watch`: the long-running reconciler of one or many stacks. */
export function registerWatch(program: Command, io: CommandIO): void {
  watchOptions(withOperationOptions(program.command("watch"))).action((flags: WatchFlags) => runWatch(flags, io));
}

/** The command's description and its own options, in the order `watch --help` shows them. */
function watchOptions(command: Command): Command {
  return command
    .description(
      "the long-running reconciler of one or many stacks: drift and check on a schedule, follow git, serve /healthz /readyz /metrics, a status page and API, send signed events (runs until SIGTERM, then exits 0)",
    )
    .option("--stack <name>", "a stack to watch: stacks/Pulumi.<name>.yaml (repeatable)", collect, [] as string[])
    .option("--config <file>", "path of one stack file (instead of --stack)")
    .option("--all", "watch every stack `stackwarden stacks` lists")
    .option(...STACKS_DIR_OPTION)
    .option(
      "--interval <duration>",
      `time between full sweeps (e.g. 30s, 5m; ${formatDuration(DEFAULT_INTERVAL_WITHOUT_CHANGES_MS)} when change records are off; default ${formatDuration(DEFAULT_INTERVAL_MS)})`,
      intervalOption,
    )
    .option("--schedule <cron>", 'tick at a cron schedule instead (e.g. "*/5 * * * *"; 6 fields for seconds)')
    .option(
      "--listen <host:port>",
      "serve /healthz, /readyz, /metrics, the status page / and the API /api/v1/stacks here (e.g. 127.0.0.1:9090)",
      listenOption,
    )
    .option(
      "--status-token <token>",
      "required on any address but loopback (env STACKWARDEN_STATUS_TOKEN; at least 16 characters): every request but /healthz and /readyz must carry it",
    )
    .option(
      "--notify <url>",
      "send each state change as a CloudEvent to this webhook, signed as Standard Webhooks with STACKWARDEN_NOTIFY_SECRET (repeatable)",
      collect,
      [] as string[],
    )
    .option(
      "--git <dir>",
      "follow the git checkout in DIR: fetch its branch each tick; a new commit is planned (and applied with --auto-apply)",
    )
    .option("--git-remote <name>", "the remote to fetch", "origin")
    .option("--git-branch <name>", "the branch to follow (default: the one checked out)")
    .option("--auto-apply", "apply each new commit's plan (with --git)")
    .option("--auto-remediate", "repair drift that moves toward compliance; repairs a mandatory rule would flag are only reported")
    .addOption(
      new Option("--grace <duration>", "on SIGTERM, how long a running apply may go on before it stops between requests")
        .argParser(durationOption)
        .default(30_000, "30s"),
    )
    .addOption(
      new Option(
        "--changes <on|off>",
        "read Azure's change records (the Activity Log; Event Grid with --events) and re-read what they touch between sweeps",
      )
        .choices(["on", "off"])
        .default("on"),
    )
    .addOption(
      new Option("--changes-interval <duration>", "how often the Activity Log is read (at least 1s)")
        .argParser(changesIntervalOption)
        .default(DEFAULT_CHANGES_INTERVAL_MS, formatDuration(DEFAULT_CHANGES_INTERVAL_MS)),
    )
    .option("--events", "accept Event Grid deliveries at POST /events/azure on --listen (both schemas, both validation handshakes)")
    .option(
      "--events-secret-env <name>",
      "the environment variable holding the shared secret Event Grid deliveries carry in ?key= (required with --events off loopback)",
    )
    .option("--max-ticks <n>", "stop after N ticks (benchmarks and smoke tests)", intOption(1))
    .option("--concurrency <n>", "databases read or changed at once", intOption(1, 256), 16)
    .option("--scan-timeout <seconds>", "longest wait for one scan", intOption(1), 3600)
    .option("--poll-interval <ms>", "time between scan progress polls", intOption(50, 600_000), 1000);
}

/**
 * The action: checks the flags and stacks, then runs one replica of the watcher (the watch use
 * case) with this interface's surface (metrics, the status board, the webhooks) and, with
 * --listen, its server; renders its first lines and its last. Runs until a stop is asked.
 */
async function runWatch(flags: WatchFlags, io: CommandIO): Promise<void> {
  checkFlagCombinations(flags);
  const schedule = scheduleOf(flags);
  const secret = flags.notify.length ? notifySecret(io.env) : undefined;
  const git = flags.git ? await gitToFollow(flags.git, flags, io.cwd) : undefined;
  // With --git the stack files are the checkout's.
  const stacks = watchedStacks(flags, git?.dir ?? io.cwd, io);
  const many = stacks.length > 1;
  const log = (line: string) => io.out(`${new Date().toISOString()} ${line}`);
  checkStackFiles(stacks, many, log);
  // Checked before anything starts; deliveries go to the process once it is set up (a standby refuses them: 503).
  const started: { watch?: WatchProcess } = {};
  const events = eventsRoute(flags, io, (records) => (started.watch ? started.watch.acceptChanges(records) : 0), log);

  const clients = await serviceClients(io);
  const state = await stateStoresFor(io, flags);
  const watch = (started.watch = await openWatch(
    {
      stacks,
      group: flags.all ? "watch-all" : `watch-${stacks.map((s) => s.name).join(".")}`,
      schedule,
      git,
      clients,
      state,
      cwd: io.cwd,
      autoApply: !!flags.autoApply,
      autoRemediate: !!flags.autoRemediate,
      lockTimeoutMs: flags.lockTimeout,
      graceMs: flags.grace,
      maxTicks: flags.maxTicks,
      concurrency: flags.concurrency,
      scanTimeoutMs: flags.scanTimeout * 1000,
      pollIntervalMs: flags.pollInterval,
      changes:
        flags.changes === "on"
          ? { intervalMs: flags.changesInterval, debounceMs: CHANGES_DEBOUNCE_MS, queueCapacity: CHANGE_QUEUE_CAPACITY }
          : undefined,
      campaignMs: io.env.STACKWARDEN_CAMPAIGN_MS ? Number(io.env.STACKWARDEN_CAMPAIGN_MS) : undefined,
      log,
    },
    (writes) => openWatchSurface({ state, writes, notify: secret ? { urls: flags.notify, secret } : undefined, log }),
  ));
  const server = await listenIfAsked(flags, io, watch.surface, watch, events);
  if (server) io.out(`stackwarden watch: listening on ${server.url} (/healthz, /readyz, /metrics, /, /api/v1/stacks, /api/v1/replica)`);
  log(watchingLine(stacks, flags, schedule, git));
  // SIGTERM, SIGINT, or the process that started it gone (npx's shell, which passes on no signal).
  const dispose = onStopRequest(watch.stop, io.env);
  let ticks: number;
  try {
    ticks = await watch.run();
  } finally {
    dispose();
    await server?.close();
    await clients.close();
  }
  log(`stopped after ${ticks} tick(s)`);
  io.exitCode = 0;
}

function checkFlagCombinations(flags: WatchFlags): void {
  if (flags.events && !flags.listen) throw new UsageError("--events accepts deliveries on the --listen address: give --listen HOST:PORT");
  if (flags.events && flags.changes === "off") throw new UsageError("--events feeds the change records: not with --changes off");
  if (flags.eventsSecretEnv && !flags.events) throw new UsageError("--events-secret-env authenticates --events: give --events too");
  if (flags.interval !== undefined && flags.schedule) throw new UsageError("give either --interval or --schedule, not both");
  if (flags.autoApply && !flags.git) throw new UsageError("--auto-apply applies new commits: it needs --git DIR");
  const chosen = [flags.stack.length > 0, !!flags.config, !!flags.all].filter(Boolean).length;
  if (chosen > 1) throw new UsageError("give --stack NAME (repeatable), --config FILE or --all, not several");
  if (chosen === 0) throw new UsageError("which stacks? give --stack NAME (stacks/Pulumi.NAME.yaml; repeatable), --config FILE or --all");
}

function scheduleOf(flags: WatchFlags): Schedule {
  try {
    const byDefault = flags.changes === "off" ? DEFAULT_INTERVAL_WITHOUT_CHANGES_MS : DEFAULT_INTERVAL_MS;
    return flags.schedule ? cronSchedule(flags.schedule) : { kind: "interval", ms: flags.interval ?? byDefault };
  } catch (e) {
    throw new UsageError(`--schedule: ${(e as Error).message}`);
  }
}

/** The checkout `--git` names, and the remote and branch to follow (the branch checked out unless --git-branch). */
async function gitToFollow(gitFlag: string, flags: WatchFlags, cwd: string): Promise<WatchGit> {
  const dir = resolve(cwd, gitFlag);
  if (!existsSync(dir)) throw new UsageError(`--git ${gitFlag}: no such directory`);
  let branch = flags.gitBranch;
  try {
    branch ??= await currentBranch(dir);
  } catch (e) {
    throw new UsageError(`--git ${gitFlag}: not a git checkout (${(e as Error).message})`);
  }
  if (!branch) throw new UsageError(`--git ${gitFlag}: the checkout is on a detached HEAD; name the branch to follow with --git-branch`);
  return { dir, remote: flags.gitRemote, branch };
}

/** The stacks to watch: the one `--config` file, every listed stack (`--all`), or each `--stack`. */
function watchedStacks(flags: WatchFlags, projectDir: string, io: CommandIO): WatchedStack[] {
  const stacks: WatchedStack[] = flags.config
    ? [watched(resolve(projectDir, flags.config), /Pulumi\.([^/\\]+)\.yaml$/.exec(flags.config)?.[1] ?? flags.config, io)]
    : (flags.all ? listStacks(projectDir, flags.stacksDir).map((s) => s.stack) : [...new Set(flags.stack)]).map((name) =>
        watched(stackFilePath(name, projectDir, flags.stacksDir), name, io),
      );
  if (stacks.length === 0) throw new UsageError(`--all: no stack files in ${join(projectDir, flags.stacksDir ?? "stacks")}`);
  return stacks;
}

/**
 * A bad stack file at start is an error at once when it is the only one; among many, it only
 * fails that stack's ticks (Stalled on the status page), never the others.
 */
function checkStackFiles(stacks: readonly WatchedStack[], many: boolean, log: (line: string) => void): void {
  for (const st of stacks) {
    try {
      st.load();
    } catch (e) {
      if (!many) throw e;
      log(`[${st.name}] cannot read its stack file yet: ${(e as Error).message}`);
    }
  }
}

type WatchServer = Awaited<ReturnType<typeof startWatchServer>>;

/** With --listen, the server of /healthz, /readyz, /metrics, the page and the API; a failure to listen closes what was opened. */
async function listenIfAsked(
  flags: WatchFlags,
  io: CommandIO,
  surface: OpenedWatchSurface,
  watch: WatchProcess,
  events: AzureEventsRoute | undefined,
): Promise<WatchServer | undefined> {
  if (!flags.listen) return undefined;
  try {
    return await startWatchServer({
      ...flags.listen,
      readiness: () => watch.readiness(),
      metrics: async () => ({ contentType: surface.metrics.registry.contentType, body: await surface.metrics.registry.metrics() }),
      status: surface.board,
      replica: () => watch.replica(),
      statusToken: flags.statusToken ?? (io.env.STACKWARDEN_STATUS_TOKEN?.trim() || undefined),
      events,
    });
  } catch (e) {
    await surface.close();
    throw new UsageError(`--listen: ${(e as Error).message}`);
  }
}

/** With --events, Event Grid's webhook, feeding the change feed; its secret read from the variable --events-secret-env names. */
function eventsRoute(
  flags: WatchFlags,
  io: CommandIO,
  accept: (records: readonly ChangeRecord[]) => number | undefined,
  log: (line: string) => void,
): AzureEventsRoute | undefined {
  if (!flags.events || !flags.listen) return undefined;
  let secret: string | undefined;
  if (flags.eventsSecretEnv) {
    secret = io.env[flags.eventsSecretEnv]?.trim();
    if (!secret) throw new UsageError(`--events-secret-env ${flags.eventsSecretEnv}: that variable is not set`);
  }
  return new AzureEventsRoute({ host: flags.listen.host, secret, accept, log });
}

/** The first line: which stacks, on what schedule, following what, with which repairs. */
function watchingLine(stacks: readonly WatchedStack[], flags: WatchFlags, schedule: Schedule, git: WatchGit | undefined): string {
  const what = `${describeSchedule(schedule)}${git ? `, following ${git.remote}/${git.branch} in ${git.dir}` : ""}${flags.autoApply ? ", auto-apply" : ""}${flags.autoRemediate ? ", auto-remediate" : ""}${
    flags.changes === "on"
      ? `, changes from the Activity Log every ${formatDuration(flags.changesInterval)}${flags.events ? " and Event Grid" : ""}`
      : ", changes off"
  }`;
  return stacks.length > 1
    ? `watching ${stacks.length} stacks (${stacks.map((s) => s.name).join(", ")}) ${what}`
    : `watching stack ${stacks[0].name} (${stacks[0].file}) ${what}`;
}

/**
 * How a stack's file is read: every tick, so edits and new commits are picked up, but parsed again
 * only when it changed (parsing a large stack file every tick would be most of a tick's work).
 */
function watched(path: string, name: string, io: CommandIO): WatchedStack {
  let cached: { key: string; stack: StackConfig } | undefined;
  const shown = path.startsWith(`${io.cwd}/`) ? path.slice(io.cwd.length + 1) : path;
  return {
    name,
    file: shown,
    load: () => {
      // The key is taken before reading: a change racing the read only costs one more read.
      const key = fileKey(path);
      if (cached && key !== undefined && key === cached.key) return cached.stack;
      const stack = loadStackFile(path, io.env, io.cwd);
      cached = key ? { key, stack } : undefined;
      return stack;
    },
  };
}

/** STACKWARDEN_NOTIFY_SECRET, checked before anything starts (one line naming the variable, never the value). */
function notifySecret(env: NodeJS.ProcessEnv): string {
  try {
    return parseNotifySecret(env.STACKWARDEN_NOTIFY_SECRET);
  } catch (e) {
    throw new UsageError(`--notify: ${(e as Error).message}`);
  }
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** What tells a changed file: inode, size and modification time (undefined when it cannot be read). */
function fileKey(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
}

function intervalOption(value: string): number {
  const ms = durationOption(value);
  if (ms < 1) throw new InvalidArgumentError(`the interval must be at least 1ms, got "${value}"`);
  return ms;
}

function changesIntervalOption(value: string): number {
  const ms = durationOption(value);
  if (ms < 1000) throw new InvalidArgumentError(`the changes interval must be at least 1s, got "${value}"`);
  return ms;
}

function listenOption(value: string): { host: string; port: number } {
  try {
    return parseListen(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}
