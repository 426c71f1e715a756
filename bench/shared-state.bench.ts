import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../src/emulator/server";
import { parseSeed } from "../src/emulator/seed";
import { LOCAL_SERVICES } from "../src/emulator/services";
import { PROJECT_ROOT } from "../src/platform/version";
import { randomUUID } from "node:crypto";
import { BlobServiceClient, StorageSharedKeyCredential, type ContainerClient } from "@azure/storage-blob";
import type { AuditRecord } from "../src/domain/audit/audit-entry";
import { AuditTrail } from "../src/domain/audit/audit-trail";
import { acquireStackLock } from "../src/domain/reconcile/stack-lock";
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite } from "../src/platform/programs/azurite-server";
import { openBlobState } from "../src/platform/state/blob/blob-state";
import { median, reportGoal } from "./goal";
import { thisProcess } from "../src/platform/process-identity";

/**
 * Shared state on Blob Storage (Azurite in a child process, so its CPU is not ours): what a stack
 * lock (acquire + release) and one audit append cost through stackwarden's adapter, against the
 * bare @azure/storage-blob calls they make, in interleaved rounds (machine noise falls on both).
 * - lock: create-if-absent of the lease blob, acquire the lease, write the holder, release;
 * - append: list the trail's entries, read the last, read it again as the entry before, create the next.
 * Goal: each at most 1.2x its bare calls.
 *
 * Then failover: two watcher replicas (compiled CLI, one Azurite state URL, lease 15 s, ticks every
 * second) and BENCH_KILLS times (default 20) a kill -9 of the leader, timed until the standby's first
 * tick as leader (its `tick 1:` line), a new standby started after each. Goal: p50 and p99 at most
 * the lease plus one tick plus 2 s.
 *
 * Settings (environment): BENCH_ROUNDS (default 10), BENCH_OPS (operations per round, default 20), BENCH_KILLS.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const OPS = Number(process.env.BENCH_OPS ?? 20);

const record = (i: number): AuditRecord => ({
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  stack: "bench",
  command: "apply",
  who: { claims: "decoded", host: "bench" },
  what: [{ resource: `/subscriptions/s/databases/db${i}`, before: "Disabled", after: "Enabled", outcome: "converged" }],
  commit: null,
  exitCode: 0,
});

async function bareLock(c: ContainerClient, name: string): Promise<void> {
  const blob = c.getBlobClient(name);
  await blob
    .getBlockBlobClient()
    .upload("", 0, { conditions: { ifNoneMatch: "*" } })
    .catch(() => undefined);
  const lease = blob.getBlobLeaseClient(randomUUID());
  await lease.acquireLease(30);
  await blob.setMetadata({ holderpid: String(process.pid), holderhost: hostname() }, { conditions: { leaseId: lease.leaseId } });
  await lease.releaseLease();
}

async function bareAppend(c: ContainerClient, folder: string, seq: number): Promise<void> {
  const names: string[] = [];
  for await (const item of c.listBlobsFlat({ prefix: folder })) names.push(item.name);
  names.sort();
  if (names.length) {
    await c.getBlobClient(names[names.length - 1]).downloadToBuffer();
    await c.getBlobClient(names[names.length - 1]).downloadToBuffer();
  }
  const body = Buffer.from(JSON.stringify(record(seq)));
  await c
    .getBlockBlobClient(`${folder}${String(seq).padStart(12, "0")}.json`)
    .upload(body, body.length, { conditions: { ifNoneMatch: "*" } });
}

async function timed(n: number, op: (i: number) => Promise<void>): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await op(i);
  return Number(process.hrtime.bigint() - t0) / 1e6 / n;
}

async function main(): Promise<void> {
  const azurite = await startAzurite();
  try {
    const container = "bench";
    const state = await openBlobState({
      serviceUrl: azurite.accountUrl,
      account: AZURITE_ACCOUNT,
      container,
      prefix: "",
      accountKey: AZURITE_KEY,
    });
    const bare = new BlobServiceClient(azurite.accountUrl, new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY)).getContainerClient(
      container,
    );
    const ours = { lock: [] as number[], append: [] as number[] };
    const theirs = { lock: [] as number[], append: [] as number[] };
    const trail = new AuditTrail(state.audit, "bench");
    let ourSeq = 0;
    let bareSeq = 0;
    for (let round = -1; round < ROUNDS; round++) {
      const warm = round < 0;
      const a = await timed(OPS, async () => {
        const lock = await acquireStackLock(state.locks, { stack: "bench", command: "bench", holderProcess: thisProcess() });
        await lock.release();
      });
      const b = await timed(OPS, () => bareLock(bare, "bare/locks/bench.lock"));
      const c = await timed(OPS, async () => {
        await trail.append(record(++ourSeq));
      });
      const d = await timed(OPS, () => bareAppend(bare, "bare/audit/bench/", ++bareSeq));
      if (warm) continue;
      ours.lock.push(a);
      theirs.lock.push(b);
      ours.append.push(c);
      theirs.append.push(d);
      process.stdout.write(
        `round ${round + 1}: lock ${a.toFixed(2)} ms vs bare ${b.toFixed(2)} ms; append ${c.toFixed(2)} ms vs bare ${d.toFixed(2)} ms\n`,
      );
    }
    const lockRatio = median(ours.lock) / median(theirs.lock);
    const appendRatio = median(ours.append) / median(theirs.append);
    process.stdout.write(
      `lock acquire+release: ${median(ours.lock).toFixed(2)} ms (bare calls ${median(theirs.lock).toFixed(2)} ms); audit append: ${median(ours.append).toFixed(2)} ms (bare calls ${median(theirs.append).toFixed(2)} ms), trails of ${ourSeq} entries\n`,
    );
    reportGoal({ figure: "stack lock acquire+release on Azurite vs the bare storage calls", value: lockRatio, limit: 1.2 });
    reportGoal({ figure: "audit append on Azurite vs the bare storage calls", value: appendRatio, limit: 1.2 });
    // BENCH_KILLS=0 measures the lock and the append only.
    if (KILLS > 0) await failover(azurite.stateUrl("failover"));
    else process.stdout.write("failover: not measured (BENCH_KILLS=0)\n");
  } finally {
    await azurite.stop();
  }
}

const LEASE_S = 15;
const TICK_MS = 1000;
const KILLS = Number(process.env.BENCH_KILLS ?? 20);

/** A watcher replica in its own directory, its output collected. */
function replica(stateUrl: string, emulatorUrl: string): { proc: ChildProcess; out: () => string; exited: Promise<unknown> } {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-failover-"));
  writeFileSync(
    join(dir, "Pulumi.fo.yaml"),
    "config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:databases:\n    - { resourceGroup: rg, server: s1, database: orders, transparentDataEncryption: Enabled }\n",
  );
  const proc = spawn(
    process.execPath,
    [join(PROJECT_ROOT, "bin", "stackwarden.js"), "watch", "--config", "Pulumi.fo.yaml", "--interval", `${TICK_MS}ms`],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        STACKWARDEN_EMULATOR: emulatorUrl,
        STACKWARDEN_STATE_URL: stateUrl,
        STACKWARDEN_STATE_ACCOUNT_KEY: AZURITE_KEY,
        STACKWARDEN_LEASE_SECONDS: String(LEASE_S),
        STACKWARDEN_CAMPAIGN_MS: "250",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  proc.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  return { proc, out: () => out, exited: new Promise((r) => proc.once("exit", r)) };
}

async function until(check: () => boolean, ms: number): Promise<number> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now();
}

/** Leader kill -9 to the standby's first tick, KILLS times. */
async function failover(stateUrl: string): Promise<void> {
  const emu = await startEmulator({
    seed: parseSeed(
      "fo.yaml",
      JSON.stringify({
        sql: {
          subscriptionId: "00000000-0000-0000-0000-000000000000",
          servers: [{ name: "s1", resourceGroup: "rg", databases: [{ name: "orders", transparentDataEncryption: "Enabled" }] }],
        },
      }),
      LOCAL_SERVICES,
    ),
  });
  const all: ReturnType<typeof replica>[] = [];
  const leads = (r: ReturnType<typeof replica>) => /leading watch-fo/.test(r.out());
  try {
    let leader = replica(stateUrl, emu.url);
    all.push(leader);
    await until(() => leads(leader) && /tick 1:/.test(leader.out()), 60_000);
    const times: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      const standby = replica(stateUrl, emu.url);
      all.push(standby);
      await until(() => /standing by/.test(standby.out()), 60_000);
      await new Promise((r) => setTimeout(r, 1000 + Math.random() * 4000)); // a random moment of the leader's lease
      leader.proc.kill("SIGKILL");
      const killed = Date.now();
      await leader.exited;
      const ticked = await until(
        () => leads(standby) && /tick 1:/.test(standby.out().slice(standby.out().indexOf("leading watch-fo"))),
        60_000,
      );
      times.push(ticked - killed);
      process.stdout.write(`kill ${k + 1}: the standby ticked as leader ${((ticked - killed) / 1000).toFixed(2)} s after the kill\n`);
      leader = standby;
    }
    const sorted = [...times].sort((a, b) => a - b);
    const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
    const floor = LEASE_S * 1000 + TICK_MS;
    process.stdout.write(
      `failover over ${KILLS} kills: p50 ${(p(0.5) / 1000).toFixed(2)} s, p99 ${(p(0.99) / 1000).toFixed(2)} s; lease ${LEASE_S} s + one tick ${TICK_MS / 1000} s = ${(floor / 1000).toFixed(1)} s\n`,
    );
    reportGoal({
      figure: "failover p50 (leader kill -9 to the standby's first tick) vs lease + one tick",
      value: p(0.5) / floor,
      limit: (floor + 2000) / floor,
    });
    reportGoal({ figure: "failover p99 vs lease + one tick", value: p(0.99) / floor, limit: (floor + 2000) / floor });
  } finally {
    for (const r of all) r.proc.kill("SIGKILL");
    await Promise.all(all.map((r) => r.exited));
    await emu.close();
  }
}

void main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
