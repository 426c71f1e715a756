/**
 * Discovery and judgement of a stack's scope at estate scale: 10 000 databases on 200 servers in 20
 * subscriptions, none listed by the stack, under Resource Manager's throttling (the emulator in a
 * child process with `--throttle`, refill scaled as in `check-throttled`). One run: discover the
 * scope (Servers_List per subscription, Databases_ListByServer per server, every page), then judge
 * every discovered database with `sql-tde-enabled` (one TransparentDataEncryptions_Get each), with the
 * client set as it ships (one pacer lane per subscription).
 *
 * The floor is the larger of the throttle's and the rig's. Each subscription has its own read bucket
 * (250 tokens, refill 25/s x scale), and the subscriptions are read in parallel, so the throttle floor
 * is the slowest subscription's (its GETs - 250) / refill; the rig is a bare undici client replaying
 * the same GETs against the same emulator with its throttling off (bench/rig-floor.ts). Reported
 * beside: reads per database, 429s, peak RSS of this process. Goal: at most 1.1x the floor, no 429.
 *
 * Then the time from a database's creation to its verdict (issue 42 item 5, creation-latency.ts): a
 * `watch` of the same scope, fed by Event Grid, BENCH_CREATIONS databases (40) created at random
 * moments over BENCH_CREATION_WINDOW_S seconds (20) through the emulator's Resource Manager route,
 * each PUT to the watcher's line judging it. Goal: p99 at most 5 s, all judged, no sweep.
 *
 * Settings (environment): BENCH_SUBSCRIPTIONS (20), BENCH_SERVERS_PER_SUBSCRIPTION (10),
 * BENCH_DATABASES_PER_SERVER (50), BENCH_REFILL_SCALE (20), BENCH_CONCURRENCY (16); BENCH_PROFILE (a file:
 * the CPU profile of the measured discovery + judgement, see phase-profile.ts).
 */
import { loadavg } from "node:os";
import { newClientSet } from "../src/clients/client-set";
import { sqlTdeEnabled } from "../src/domain/compliance/rules/sql-tde-enabled";
import { resolveRuleSettings } from "../src/domain/compliance/rule-settings";
import type { StackConfig } from "../src/domain/stack/stack-config";
import { openMemoryState } from "../src/platform/state/memory/memory-state";
import { runCheck } from "../src/usecases/check";
import { discoverScope } from "../src/usecases/scope";
import { startChildEmulator } from "./bench-emulator";
import { measureCreationToVerdict } from "./creation-latency";
import { reportGoal } from "./goal";
import { profilePhase } from "./phase-profile";
import { replayReads } from "./rig-floor";

const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 20);
const SERVERS = Number(process.env.BENCH_SERVERS_PER_SUBSCRIPTION ?? 10);
const PER_SERVER = Number(process.env.BENCH_DATABASES_PER_SERVER ?? 50);
const SCALE = Number(process.env.BENCH_REFILL_SCALE ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const BUCKET = 250;
const RATE = 25 * SCALE;
const PAGE = 100;
const CREATIONS = Number(process.env.BENCH_CREATIONS ?? 40);
const CREATION_WINDOW_S = Number(process.env.BENCH_CREATION_WINDOW_S ?? 20);

const subscriptionIds = Array.from({ length: SUBSCRIPTIONS }, (_, i) => `${String(i + 1).padStart(8, "0")}-0000-0000-0000-000000000000`);

/** The q-th percentile (nearest rank) of a list of numbers; q = 100 is the largest. */
function percentile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((q / 100) * s.length) - 1))] ?? NaN;
}

async function main(): Promise<void> {
  const servers = subscriptionIds.flatMap((subscriptionId, si) =>
    Array.from({ length: SERVERS }, (_, s) => ({
      name: `sql-disc-${si}-${s}`,
      resourceGroup: `rg-${s % 3}`,
      subscriptionId,
      databases: Array.from({ length: PER_SERVER }, (_, d) => ({
        name: `db${d}`,
        transparentDataEncryption: d % 7 === 0 ? "Disabled" : "Enabled",
      })),
    })),
  );
  const total = servers.length * PER_SERVER;
  const emu = await startChildEmulator({ emulator: { pageSize: PAGE }, sql: { servers } }, [
    "--throttle",
    "--throttle-refill-scale",
    String(SCALE),
  ]);
  try {
    const stack: StackConfig = {
      file: "bench",
      subscriptionId: subscriptionIds[0],
      elasticPools: [],
      exemptions: [],
      policies: resolveRuleSettings(undefined),
      batch: { locations: [], workspaces: [] },
      databases: [],
      scope: {
        subscriptions: subscriptionIds,
        includeTags: {},
        excludeTags: {},
        transparentDataEncryption: "Enabled",
        remediate: false,
        exemptions: [],
      },
    };
    process.stdout.write(
      `${total} databases on ${servers.length} servers in ${SUBSCRIPTIONS} subscriptions, none listed; pages of ${PAGE}; concurrency ${CONCURRENCY}; throttling: read bucket ${BUCKET} per subscription, refill ${RATE}/s (25/s x ${SCALE}); emulator in a child process\n`,
    );
    const clients = newClientSet({ PATH: process.env.PATH, STACKWARDEN_EMULATOR: emu.url });
    const state = openMemoryState("bench");
    // Warm-up (token, connections, JIT) on one subscription, then full buckets again.
    await discoverScope({ ...stack, scope: { ...stack.scope!, subscriptions: [subscriptionIds[0]] } }, clients);
    await new Promise((r) => setTimeout(r, Math.ceil((BUCKET / RATE) * 1000) + 500));
    const before = await emu.stats();
    const gets0 = await emu.gets();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let discovered = 0;
    const { scoped, outcome } = await profilePhase(process.env.BENCH_PROFILE, async () => {
      const scoped = await discoverScope(stack, clients, { concurrency: CONCURRENCY });
      discovered = performance.now() - t0;
      const outcome = await runCheck({
        stack: scoped.stack,
        stackName: "bench",
        clients,
        cwd: process.cwd(),
        state,
        rules: [sqlTdeEnabled],
        concurrency: CONCURRENCY,
      });
      return { scoped, outcome };
    });
    const wall = performance.now() - t0;
    const used = process.cpuUsage(cpu0);
    const gets = (await emu.gets()) - gets0;
    const after = await emu.stats();
    const throttled = after.throttled - before.throttled;
    await clients.close();
    const failing = outcome.findings.filter((f) => f.verdict === "fail").length;
    const expectedFailing = servers.length * Math.ceil(PER_SERVER / 7);
    if (scoped.stack.databases.length !== total) throw new Error(`discovered ${scoped.stack.databases.length} of ${total} databases`);
    if (failing !== expectedFailing) throw new Error(`${failing} databases judged unencrypted, ${expectedFailing} are`);
    const perRead = (ms: number) => `${((ms * 1000) / gets).toFixed(0)} µs/read`;
    process.stdout.write(
      `discovery + judgement   wall ${(wall / 1000).toFixed(2)} s (discovery ${(discovered / 1000).toFixed(2)} s), ${gets} GETs (${(gets / total).toFixed(3)} per database), ${throttled} answered 429, ${failing} unencrypted found; client CPU ${perRead((used.user + used.system) / 1000)}, emulator ${perRead((after.cpuMicros - before.cpuMicros) / 1000)}; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`,
    );
    // The rig alone: the same GETs (server lists, database lists, TDE reads), replayed bare, throttling off.
    const base = (sub: string) => `${emu.url}/subscriptions/${sub}`;
    const urls = [
      ...subscriptionIds.flatMap((sub) => {
        const pages = Math.ceil(SERVERS / PAGE);
        return Array.from({ length: pages }, () => `${base(sub)}/providers/Microsoft.Sql/servers?api-version=2021-11-01`);
      }),
      ...servers.flatMap((s) =>
        Array.from(
          { length: Math.ceil((PER_SERVER + 1) / PAGE) },
          () =>
            `${base(s.subscriptionId)}/resourceGroups/${s.resourceGroup}/providers/Microsoft.Sql/servers/${s.name}/databases?api-version=2023-02-01-preview`,
        ),
      ),
      ...servers.flatMap((s) =>
        s.databases.map(
          (d) =>
            `${base(s.subscriptionId)}/resourceGroups/${s.resourceGroup}/providers/Microsoft.Sql/servers/${s.name}/databases/${d.name}/transparentDataEncryption/current?api-version=2014-04-01`,
        ),
      ),
    ];
    const rig = await replayReads(emu, urls, { concurrency: CONCURRENCY, throttling: { refillScale: SCALE } });
    process.stdout.write(
      `rig                     bare undici replaying ${rig.reads} GETs, throttling off: wall ${(rig.wall / 1000).toFixed(2)} s, client ${((rig.clientCpu * 1000) / rig.reads).toFixed(0)} µs/read, emulator ${((rig.emulatorCpu * 1000) / rig.reads).toFixed(0)} µs/read${rig.notOk ? `, ${rig.notOk} not 200` : ""}\n`,
    );
    const perSubscription = gets / SUBSCRIPTIONS;
    const throttle = (Math.max(0, perSubscription - BUCKET) / RATE) * 1000;
    const floor = Math.max(throttle, rig.wall);
    process.stdout.write(
      `floor                   max(throttle (${perSubscription.toFixed(0)} GETs per subscription - ${BUCKET}) / ${RATE}/s, in parallel = ${(throttle / 1000).toFixed(2)} s, rig ${(rig.wall / 1000).toFixed(2)} s) = ${(floor / 1000).toFixed(2)} s; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}\n`,
    );
    reportGoal({
      figure: `discovery + judgement of ${total} databases in ${SUBSCRIPTIONS} subscriptions vs max(throttle floor, rig)`,
      value: wall / floor,
      limit: 1.1,
      also: [{ ok: throttled === 0, what: `${throttled} 429s` }],
    });
    const created = await measureCreationToVerdict(emu, {
      subscriptions: subscriptionIds,
      servers,
      count: CREATIONS,
      windowMs: CREATION_WINDOW_S * 1000,
    });
    const ms = (q: number) => percentile(created.ms, q);
    process.stdout.write(
      `creation to verdict     ${created.created} databases created over ${CREATION_WINDOW_S} s (ARM PUT, then TDE off), a watcher fed by Event Grid: p50 ${(ms(50) / 1000).toFixed(2)} s, p99 ${(ms(99) / 1000).toFixed(2)} s, max ${(ms(100) / 1000).toFixed(2)} s; ${created.ms.length} judged${created.missing.length ? ` (never: ${created.missing.slice(0, 3).join(", ")}…)` : ""}; the watcher's first sweep ${(created.firstSweepMs / 1000).toFixed(1)} s, ${created.sweeps} sweep(s) in all, ${created.rereads} re-read(s), ${created.throttled} 429s; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}\n`,
    );
    reportGoal({
      figure: `creation to verdict (Event Grid), p99 of ${created.created} databases created at run time`,
      value: ms(99) / 1000,
      limit: 5,
      unit: " s",
      also: [
        { ok: created.missing.length === 0, what: `${created.missing.length} never judged` },
        { ok: created.sweeps === 1, what: `${created.sweeps - 1} sweep(s) after the first` },
        { ok: created.throttled === 0, what: `the watcher saw ${created.throttled} 429s` },
      ],
    });
  } finally {
    emu.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`discovery bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
