/**
 * `plan` over 10 000 databases under Resource Manager's throttling (the emulator in a child process
 * with `--throttle`): the read bucket holds 250 tokens, so every GET after the first 250 waits for the
 * refill. The floor is (GETs - bucket) / refill rate: no client can finish sooner. The documented
 * rate, 25 per second, would make that 6.5 minutes per run, so the emulator's refill rates are scaled
 * (`--throttle-refill-scale`, default 20: 500 reads per second; bucket sizes unchanged); the ratio to
 * the floor is what counts.
 *
 * Two runs on the same emulator, the bucket full before each: the ARM client as it ships (paced by
 * the remaining-budget headers, src/platform/arm/arm-pacer.ts), then the same client with `pacing: false`,
 * which bursts and backs off on 429 + Retry-After (the retry policy's defaults). Goal for the paced
 * run: at most 1.1x the floor, with zero 429s. The floor is the larger of the throttle's and the
 * rig's: a bare undici client replaying the same TDE reads against the same emulator, its throttling
 * off (bench/rig-floor.ts). Beside each run, the client's CPU per read (`process.cpuUsage` of this
 * process, which runs nothing else meanwhile) and the emulator's (`cpuMicros`).
 *
 * Settings (environment): BENCH_DATABASES (default 10 000), BENCH_REFILL_SCALE (default 20), BENCH_CONCURRENCY (default 16).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { ArmPacer } from "../src/platform/arm/arm-pacer";
import { ImdsManagedIdentityCredential } from "../src/services/imds/imds-credential";
import { resolveRuleSettings } from "../src/domain/compliance/rule-settings";
import type { StackConfig } from "../src/domain/stack/stack-config";
import { planTde } from "../src/domain/reconcile/tde-plan";
import { SqlClient } from "../src/services/sql/client";
import { loadavg } from "node:os";
import { sqlEstate, startChildEmulator } from "./bench-emulator";
import { reportGoal } from "./goal";
import { replayReads } from "./rig-floor";

const DATABASES = Number(process.env.BENCH_DATABASES ?? 10_000);
const SCALE = Number(process.env.BENCH_REFILL_SCALE ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const BUCKET = 250;
const RATE = 25 * SCALE;
const PER_SERVER = 100;
const SUB = "00000000-0000-0000-0000-000000000000";

async function main(): Promise<void> {
  const servers = sqlEstate(Math.ceil(DATABASES / PER_SERVER), PER_SERVER);
  const emu = await startChildEmulator({ sql: { subscriptionId: SUB, servers } }, ["--throttle", "--throttle-refill-scale", String(SCALE)]);
  try {
    const stack: StackConfig = {
      file: "bench",
      subscriptionId: SUB,
      elasticPools: [],
      exemptions: [],
      policies: resolveRuleSettings(undefined),
      batch: { locations: [], workspaces: [] },
      databases: servers
        .flatMap((s) =>
          s.databases.map((d) => ({
            resourceGroup: s.resourceGroup,
            server: s.name,
            database: d.name,
            transparentDataEncryption: "Enabled" as const,
          })),
        )
        .slice(0, DATABASES),
    };
    const refill = () => sleep(Math.ceil((BUCKET / RATE) * 1000) + 500); // a full bucket before each run
    process.stdout.write(
      `${DATABASES} databases, concurrency ${CONCURRENCY}; throttling: read bucket ${BUCKET}, refill ${RATE}/s (the documented 25/s x ${SCALE}); emulator in a child process\n`,
    );
    const results: Record<string, { wall: number; gets: number; throttled: number; cpu: number; emulatorCpu: number; failed?: string }> =
      {};
    const perRead = (ms: number, reads: number) => `${((ms * 1000) / reads).toFixed(0)} µs/read`;
    for (const pacing of [true, false]) {
      const credential = new ImdsManagedIdentityCredential({ endpoint: `${emu.url}/metadata` });
      const pacer = pacing ? new ArmPacer() : false;
      const sql = new SqlClient({ endpoint: emu.url, credential, pacing: pacer });
      // Warm-up (token, connections, JIT), then a full bucket again.
      await planTde(sql, { ...stack, databases: stack.databases.slice(0, 32) }, { concurrency: CONCURRENCY });
      await refill();
      const before = await emu.stats();
      const gets0 = await emu.gets();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      let failed: string | undefined;
      try {
        const plan = await planTde(sql, stack, { concurrency: CONCURRENCY });
        if (plan.items.length !== DATABASES) throw new Error(`planned ${plan.items.length} databases`);
      } catch (e) {
        failed = (e as Error).message;
      }
      const wall = performance.now() - t0;
      const used = process.cpuUsage(cpu0);
      const cpu = (used.user + used.system) / 1000;
      const gets = (await emu.gets()) - gets0;
      const after = await emu.stats();
      const throttled = after.throttled - before.throttled;
      const emulatorCpu = (after.cpuMicros - before.cpuMicros) / 1000;
      const name = pacing ? "paced (as shipped)" : "unpaced (pacing: false)";
      results[name] = { wall, gets, throttled, cpu, emulatorCpu, failed };
      process.stdout.write(
        `${name.padEnd(24)} wall ${(wall / 1000).toFixed(2)} s, ${gets} GETs served, ${throttled} answered 429, client CPU ${perRead(cpu, gets)}, emulator ${perRead(emulatorCpu, gets)}${failed ? `; FAILED: ${failed}` : ""}${
          pacer
            ? `; refill rate learned ${Object.values(pacer.stats().rates)
                .map((r) => r.toFixed(0))
                .join("/")}/s`
            : ""
        }\n`,
      );
      await refill();
    }
    // The rig alone: the same TDE reads replayed by a bare client, the emulator's throttling off.
    const urls = stack.databases.map(
      (d) =>
        `${emu.url}/subscriptions/${SUB}/resourceGroups/${d.resourceGroup}/providers/Microsoft.Sql/servers/${d.server}/databases/${d.database}/transparentDataEncryption/current?api-version=2014-04-01`,
    );
    const rig = await replayReads(emu, urls, { concurrency: CONCURRENCY, throttling: { refillScale: SCALE } });
    process.stdout.write(
      `rig                      bare undici replaying the ${rig.reads} reads, throttling off: wall ${(rig.wall / 1000).toFixed(2)} s, client ${perRead(rig.clientCpu, rig.reads)}, emulator ${perRead(rig.emulatorCpu, rig.reads)}${rig.notOk ? `, ${rig.notOk} not 200` : ""}\n`,
    );
    const throttle = ((DATABASES - BUCKET) / RATE) * 1000;
    const floor = Math.max(throttle, rig.wall);
    process.stdout.write(
      `floor                    max(throttle (${DATABASES} GETs - ${BUCKET}) / ${RATE}/s = ${(throttle / 1000).toFixed(2)} s, rig ${(rig.wall / 1000).toFixed(2)} s) = ${(floor / 1000).toFixed(2)} s; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}\n`,
    );
    const paced = results["paced (as shipped)"];
    const unpaced = results["unpaced (pacing: false)"];
    process.stdout.write(
      `unpaced, for comparison  ${(unpaced.wall / floor).toFixed(2)}x the floor, ${unpaced.throttled} 429s${unpaced.failed ? ", and the plan failed" : ""}\n`,
    );
    reportGoal({
      figure: `plan over ${DATABASES} databases under ARM throttling, paced, vs max(throttle floor, rig)`,
      value: paced.wall / floor,
      limit: 1.1,
      also: [
        { ok: paced.throttled === 0, what: `${paced.throttled} 429s` },
        { ok: !paced.failed, what: paced.failed ? "FAILED" : "completed" },
      ],
    });
  } finally {
    emu.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`plan-throttled bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
