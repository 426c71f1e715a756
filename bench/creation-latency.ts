import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { ARM_SCOPE } from "../src/platform/auth/scopes";
import { ImdsManagedIdentityCredential } from "../src/services/imds/imds-credential";
import { SqlClient } from "../src/services/sql/client";
import type { ChildEmulator } from "./bench-emulator";
import { startWatcher } from "./watcher-child";

/** Where a database may be created: a server of the estate. */
export interface CreationServer {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
}

/** What `measureCreationToVerdict` saw. */
export interface CreationLatency {
  /** ms from each creation's PUT to the watcher's line judging it, for those judged. */
  ms: number[];
  /** Databases created, and those the watcher never named within the wait. */
  created: number;
  missing: string[];
  /** The watcher's first sweep: how long it took (ms), and how many sweeps it ran in all (1: none after the creations). */
  firstSweepMs: number;
  sweeps: number;
  /** Its targeted re-reads, and its 429s. */
  rereads: number;
  throttled: number;
}

/** Deterministic randomness (mulberry32), so that a run can be repeated. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Issue 42 item 5 measured: a `stackwarden watch` (child process) on a stack that lists no database and
 * whose scope is `subscriptions`, fed by the emulator's Event Grid (one event subscription over every
 * subscription; the Activity Log read hourly, so it plays no part) and sweeping hourly. After its
 * first sweep, `count` databases are created through the emulator's Resource Manager route at
 * uniformly random moments over `windowMs`, each on a random server, and each has its encryption
 * turned off right after (a new database is created encrypted, as in Azure: the second write is
 * what gives it a verdict to report). Latency: the creation's PUT (sent) to the watcher's line
 * judging it (its re-read's `~ rg/server/db TDE live Disabled, desired Enabled`, stamped by the
 * watcher's clock, the same machine's). Not its drift.detected event: a stack already drifted sends
 * that once, not per database.
 */
export async function measureCreationToVerdict(
  emu: ChildEmulator,
  opts: { subscriptions: readonly string[]; servers: readonly CreationServer[]; count: number; windowMs: number; seed?: number },
): Promise<CreationLatency> {
  const eventsKey = randomBytes(24).toString("hex");
  const stack = `config:\n  stackwarden:subscriptionId: ${opts.subscriptions[0]}\n  stackwarden:databases: []\n  stackwarden:scope:\n    subscriptions: [${opts.subscriptions.join(", ")}]\n`;
  const t0 = Date.now();
  const watcher = await startWatcher(
    new Map([["Pulumi.scope.yaml", stack]]),
    ["--interval", "1h", "--changes-interval", "1h", "--events", "--events-secret-env", "EG_SECRET"],
    { STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: `${emu.url}/metadata`, EG_SECRET: eventsKey },
  );
  try {
    while (!/ tick 1: /.test(watcher.out())) {
      if (watcher.child.exitCode !== null || Date.now() - t0 > 10 * 60_000)
        throw new Error(`the watcher's first sweep did not end:\n${watcher.out().slice(-2000)}`);
      await sleep(100);
    }
    const firstSweepMs = Date.now() - t0;
    const sub = await fetch(`${emu.url}/_emulator/event-subscriptions/disc-bench`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpointUrl: `${watcher.url}/events/azure?key=${eventsKey}` }),
    });
    if (!sub.ok) throw new Error(`the Event Grid subscription was refused: ${sub.status} ${await sub.text()}`);

    const credential = new ImdsManagedIdentityCredential({ endpoint: `${emu.url}/metadata` });
    const token = (await credential.getToken(ARM_SCOPE)).token;
    const sql = new SqlClient({ endpoint: emu.url, credential });
    const rnd = random(opts.seed ?? 42);
    const plans = Array.from({ length: opts.count }, (_, i) => ({
      server: opts.servers[Math.floor(rnd() * opts.servers.length)],
      name: `created-${i}`,
      at: rnd() * opts.windowMs,
      sentAt: 0,
    }));
    await Promise.all(
      plans.map(async (p) => {
        await sleep(p.at);
        const s = p.server;
        p.sentAt = Date.now();
        const res = await fetch(
          `${emu.url}/subscriptions/${s.subscriptionId}/resourceGroups/${s.resourceGroup}/providers/Microsoft.Sql/servers/${s.name}/databases/${p.name}?api-version=2021-11-01`,
          {
            method: "PUT",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ location: "East US" }),
          },
        );
        if (res.status !== 201) throw new Error(`creating ${s.name}/${p.name} answered ${res.status}: ${await res.text()}`);
        await sql.putTransparentDataEncryption(
          { subscriptionId: s.subscriptionId, resourceGroup: s.resourceGroup, server: s.name, database: p.name },
          "Disabled",
        );
      }),
    );
    const labelOf = (p: (typeof plans)[number]) => `${p.server.resourceGroup}/${p.server.name}/${p.name}`;
    // The verdict: the re-read's line naming the database as drifted (`<ISO time> re-read N:   ~ rg/server/db TDE live Disabled`).
    const judged = () => {
      const at = new Map<string, number>();
      for (const m of watcher.out().matchAll(/^(\S+) re-read \d+:\s+~ (\S+) TDE live Disabled/gm))
        if (!at.has(m[2])) at.set(m[2], Date.parse(m[1]));
      return plans.map((p) => at.get(labelOf(p)));
    };
    const deadline = Date.now() + 30_000;
    while (judged().some((d) => !d) && Date.now() < deadline) await sleep(200);
    const found = judged();
    // What the watcher said, for a run that left a database unjudged (BENCH_WATCHER_LOG: a file).
    if (process.env.BENCH_WATCHER_LOG) writeFileSync(process.env.BENCH_WATCHER_LOG, watcher.out());
    const metrics = await (await fetch(`${watcher.url}/metrics`)).text();
    const counter = (name: string) =>
      [...metrics.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\d+)`, "gm"))].reduce((a, m) => a + Number(m[1]), 0);
    return {
      ms: found.flatMap((at, i) => (at === undefined ? [] : [at - plans[i].sentAt])),
      created: plans.length,
      missing: plans.filter((_, i) => !found[i]).map(labelOf),
      firstSweepMs,
      sweeps: counter("stackwarden_watch_ticks_total"),
      rereads: counter("stackwarden_rereads_total"),
      throttled: (await watcher.requests()).throttled,
    };
  } finally {
    await watcher.stop();
  }
}
