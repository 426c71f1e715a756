import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ImdsManagedIdentityCredential } from "../src/services/imds/imds-credential";
import { mapBounded } from "../src/platform/bounded-map";
import { startEmulator } from "../src/emulator/server";
import { SqlClient } from "../src/services/sql/client";
import { reportGoal } from "./goal";

/**
 * 10 000 TDE writes (one PUT per database) on a 10 000-database estate, against the emulator with
 * `--state` (snapshot plus journal) and without it, same process, same client. The ratio of the two
 * wall times is the cost of persistence (goal: within 2x). The bytes written show why: each write
 * appends one line; rewriting the whole state per write (what a snapshot-only store does) would
 * write 10 000 times the snapshot.
 */
const SERVERS = 100;
const PER_SERVER = 100;
/** Writes in flight: 32 (appends batch per event-loop turn) and 1 (every write its own append). */
const CONCURRENCIES = [32, 1];
const SUB = "00000000-0000-0000-0000-000000000000";
const REPEATS = 3;

function estate() {
  return {
    sql: {
      subscriptionId: SUB,
      scanDurationMs: 0,
      servers: Array.from({ length: SERVERS }, (_, s) => ({
        name: `sql-${s}`,
        resourceGroup: "rg-bench",
        databases: Array.from({ length: PER_SERVER }, (_, d) => ({ name: `db${d}`, transparentDataEncryption: "Disabled" as const })),
      })),
    },
  };
}

interface Run {
  ms: number;
  writes: number;
  snapshots: number;
  snapshotBytes: number;
  journalBytesAtEnd: number;
}

async function run(stateDir: string | undefined, concurrency: number): Promise<Run> {
  const emu = await startEmulator({ seed: estate(), stateDir, onError: (l) => process.stderr.write(`${l}\n`) });
  try {
    const credential = new ImdsManagedIdentityCredential({ endpoint: `${emu.url}/metadata` });
    const sql = new SqlClient({ endpoint: emu.url, credential, validation: "off" });
    const refs = Array.from({ length: SERVERS * PER_SERVER }, (_, i) => ({
      subscriptionId: SUB,
      resourceGroup: "rg-bench",
      server: `sql-${Math.floor(i / PER_SERVER)}`,
      database: `db${i % PER_SERVER}`,
    }));
    // Warm-up on other writes: token, connections, the first snapshot.
    await mapBounded(refs.slice(0, 200), 32, (r) => sql.putTransparentDataEncryption(r, "Enabled"));
    await mapBounded(refs.slice(0, 200), 32, (r) => sql.putTransparentDataEncryption(r, "Disabled"));
    await new Promise((r) => setImmediate(r));
    const writes0 = emu.store.writes;
    const snapshots0 = emu.store.snapshots;
    const started = performance.now();
    await mapBounded(refs, concurrency, (r) => sql.putTransparentDataEncryption(r, "Enabled"));
    await new Promise((r) => setImmediate(r)); // the last turn's journal lines
    const ms = performance.now() - started;
    const size = (f: string) => (stateDir ? statSync(join(stateDir, f)).size : 0);
    return {
      ms,
      writes: emu.store.writes - writes0,
      snapshots: emu.store.snapshots - snapshots0,
      snapshotBytes: size("state.json"),
      journalBytesAtEnd: stateDir && readdirSync(stateDir).includes("state.journal") ? size("state.journal") : 0,
    };
  } finally {
    await emu.close();
  }
}

async function main(): Promise<void> {
  const n = SERVERS * PER_SERVER;
  for (const concurrency of CONCURRENCIES) {
    process.stdout.write(`${n} TDE writes (PUT), ${n} databases, ${concurrency} in flight, emulator in-process\n`);
    const without: number[] = [];
    const withState: Run[] = [];
    // Interleaved, so that warming up and the machine's noise fall on both alike; the best of each counts.
    for (let i = 0; i < REPEATS; i++) {
      const dir = mkdtempSync(join(tmpdir(), "stackwarden-state-bench-"));
      try {
        if (i % 2 === 0) {
          without.push((await run(undefined, concurrency)).ms);
          withState.push(await run(dir, concurrency));
        } else {
          withState.push(await run(dir, concurrency));
          without.push((await run(undefined, concurrency)).ms);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    const best = Math.min(...without);
    const w = withState.reduce((a, b) => (b.ms < a.ms ? b : a));
    const ratio = w.ms / best;
    process.stdout.write(`  without --state: ${best.toFixed(0)} ms (best of ${REPEATS})\n`);
    process.stdout.write(
      `  with --state:    ${w.ms.toFixed(0)} ms (best of ${REPEATS}): ${w.writes} disk writes (journal appends, ${w.snapshots} compaction snapshot(s)); snapshot ${(w.snapshotBytes / 1e6).toFixed(2)} MB, journal ${(w.journalBytesAtEnd / 1e6).toFixed(2)} MB at the end\n`,
    );
    process.stdout.write(
      `  a store that rewrote the whole state on every write would have written ${((n * w.snapshotBytes) / 1e9).toFixed(1)} GB (${n} x the snapshot)\n`,
    );
    process.stdout.write(`  ratio ${ratio.toFixed(2)}x with --state over without\n`);
    reportGoal({ figure: `state-journal: ${n} TDE writes, ${concurrency} in flight, with --state over without`, value: ratio, limit: 2 });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`state-journal bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
