import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { BlobServiceClient, StorageSharedKeyCredential, type ContainerClient } from "@azure/storage-blob";
import type { AuditRecord } from "../src/domain/audit/audit-entry";
import { AuditTrail } from "../src/domain/audit/audit-trail";
import { acquireStackLock } from "../src/domain/reconcile/stack-lock";
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite } from "../src/platform/programs/azurite-server";
import { openBlobState } from "../src/platform/state/blob/blob-state";
import { median, reportGoal } from "./goal";

/**
 * Shared state on Blob Storage (Azurite in a child process, so its CPU is not ours): what a stack
 * lock (acquire + release) and one audit append cost through stackwarden's adapter, against the
 * bare @azure/storage-blob calls they make, in interleaved rounds (machine noise falls on both).
 * - lock: create-if-absent of the lease blob, acquire the lease, write the holder, release;
 * - append: list the trail's entries, read the last, read it again as the entry before, create the next.
 * Goal: each at most 1.2x its bare calls.
 *
 * Settings (environment): BENCH_ROUNDS (default 10), BENCH_OPS (operations per round, default 20).
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
        const lock = await acquireStackLock(state.locks, { stack: "bench", command: "bench" });
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
  } finally {
    await azurite.stop();
  }
}

void main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
