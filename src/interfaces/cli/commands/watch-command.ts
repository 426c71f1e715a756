import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { InvalidArgumentError, Option, type Command } from "commander";
import { loadStackFile } from "../../../domain/stack/stack-config";
import { currentBranch, headCommit } from "../../../platform/programs/git-checkout";
import { clientSetFromEnv } from "../../../clients/client-set";
import { stateDirs } from "../../../platform/settings/state-dirs";
import { formatDuration } from "../../../platform/duration";
import { WatchMetrics } from "../../watch/watch-metrics";
import { cronSchedule, describeSchedule, type Schedule } from "../../watch/watch-schedule";
import { parseListen, startWatchServer } from "../../watch/watch-server";
import { Watcher, type WatchGit } from "../../watch/watcher";
import { UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";
import { onStopRequest } from "../stop-request";
import { durationOption, withOperationOptions, type OperationFlags } from "../operation-options";
import { intOption } from "../option-parsers";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";

interface WatchFlags extends StackFlags, OperationFlags {
  interval?: number;
  schedule?: string;
  listen?: { host: string; port: number };
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
}

const DEFAULT_INTERVAL_MS = 5 * 60_000;

export function registerWatch(program: Command, io: CommandIO): void {
  withOperationOptions(withStackOptions(program.command("watch")))
    .description(
      "the long-running reconciler: drift and check on a schedule, follow git, serve /healthz /readyz /metrics (runs until SIGTERM, then exits 0)",
    )
    .option("--interval <duration>", `time between ticks (e.g. 30s, 5m; default ${formatDuration(DEFAULT_INTERVAL_MS)})`, intervalOption)
    .option("--schedule <cron>", 'tick at a cron schedule instead (e.g. "*/5 * * * *"; 6 fields for seconds)')
    .option("--listen <host:port>", "serve /healthz, /readyz and /metrics here (e.g. 127.0.0.1:9090)", listenOption)
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
    .option("--max-ticks <n>", "stop after N ticks (benchmarks and smoke tests)", intOption(1))
    .option("--concurrency <n>", "databases read or changed at once", intOption(1, 256), 16)
    .option("--scan-timeout <seconds>", "longest wait for one scan", intOption(1), 3600)
    .option("--poll-interval <ms>", "time between scan progress polls", intOption(50, 600_000), 1000)
    .action(async (flags: WatchFlags) => {
      if (flags.interval !== undefined && flags.schedule) throw new UsageError("give either --interval or --schedule, not both");
      if (flags.autoApply && !flags.git) throw new UsageError("--auto-apply applies new commits: it needs --git DIR");
      let schedule: Schedule;
      try {
        schedule = flags.schedule ? cronSchedule(flags.schedule) : { kind: "interval", ms: flags.interval ?? DEFAULT_INTERVAL_MS };
      } catch (e) {
        throw new UsageError(`--schedule: ${(e as Error).message}`);
      }

      let git: WatchGit | undefined;
      if (flags.git) {
        const dir = resolve(io.cwd, flags.git);
        if (!existsSync(dir)) throw new UsageError(`--git ${flags.git}: no such directory`);
        let branch = flags.gitBranch;
        try {
          branch ??= await currentBranch(dir);
        } catch (e) {
          throw new UsageError(`--git ${flags.git}: not a git checkout (${(e as Error).message})`);
        }
        if (!branch)
          throw new UsageError(`--git ${flags.git}: the checkout is on a detached HEAD; name the branch to follow with --git-branch`);
        git = { dir, remote: flags.gitRemote, branch };
      }
      // With --git the stack file is the checkout's. It is read again whenever it changed (a new
      // commit, an edit): parsing a large stack file every tick would be most of a tick's work.
      const readStack = () => {
        if (!git) return loadStackFromFlags(flags, io);
        if (flags.stack && flags.config) throw new UsageError("give either --stack or --config, not both");
        if (!flags.stack && !flags.config)
          throw new UsageError("which stack? give --stack NAME (stacks/Pulumi.NAME.yaml in the checkout) or --config FILE");
        const path = flags.config ? resolve(git.dir, flags.config) : join(git.dir, "stacks", `Pulumi.${flags.stack}.yaml`);
        return { stack: loadStackFile(path, io.env, io.cwd), name: flags.stack ?? /Pulumi\.([^/\\]+)\.yaml$/.exec(path)?.[1] ?? path };
      };
      let cached: { key: string; loaded: ReturnType<typeof readStack> } | undefined;
      const loadStack = () => {
        // The key is taken before reading: a change racing the read only costs one more read.
        const key = cached ? fileKey(resolve(io.cwd, cached.loaded.stack.file)) : undefined;
        if (cached && key !== undefined && key === cached.key) return cached.loaded;
        const loaded = readStack();
        const fresh = key ?? fileKey(resolve(io.cwd, loaded.stack.file));
        cached = fresh ? { key: fresh, loaded } : undefined;
        return loaded;
      };
      // A bad stack file at start is an error at once; later it only fails its tick.
      const first = loadStack();
      const stackName = first.name;

      const clients = clientSetFromEnv(io.env);
      const metrics = new WatchMetrics(stackName);
      const log = (line: string) => io.out(`${new Date().toISOString()} ${line}`);
      const watcher = new Watcher({
        stackName,
        loadStack: () => loadStack().stack,
        schedule,
        clients,
        cwd: io.cwd,
        actor: clients.actor,
        dirs: stateDirs(io.cwd, io.env, flags),
        git,
        commitOf: () => headCommit(dirname(resolve(io.cwd, first.stack.file))),
        autoApply: !!flags.autoApply,
        autoRemediate: !!flags.autoRemediate,
        lockTimeoutMs: flags.lockTimeout,
        graceMs: flags.grace,
        maxTicks: flags.maxTicks,
        concurrency: flags.concurrency,
        scanTimeoutMs: flags.scanTimeout * 1000,
        pollIntervalMs: flags.pollInterval,
        metrics,
        log,
      });
      const server = flags.listen
        ? await startWatchServer({
            ...flags.listen,
            readiness: () => watcher.readiness(),
            metrics: async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }),
          })
        : undefined;
      if (server) io.out(`stackwarden watch: listening on ${server.url} (/healthz, /readyz, /metrics)`);
      log(
        `watching stack ${stackName} (${first.stack.file}) ${describeSchedule(schedule)}${git ? `, following ${git.remote}/${git.branch} in ${git.dir}` : ""}${flags.autoApply ? ", auto-apply" : ""}${flags.autoRemediate ? ", auto-remediate" : ""}`,
      );
      // SIGTERM, SIGINT, or the process that started it gone (npx's shell, which passes on no signal).
      const dispose = onStopRequest((reason) => watcher.stop(reason), io.env);
      try {
        await watcher.run();
      } finally {
        dispose();
        metrics.close();
        await server?.close();
        await clients.close();
      }
      log(`stopped after ${watcher.ticks} tick(s)`);
      io.exitCode = 0;
    });
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

function listenOption(value: string): { host: string; port: number } {
  try {
    return parseListen(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}
