import { runRounds } from "./run-rounds";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { verifyTrailText } from "../src/domain/audit/audit-chain";
import { startEmulator, type RunningEmulator } from "../src/emulator/server";
import { parseSeed } from "../src/emulator/seed";
import { LOCAL_SERVICES } from "../src/emulator/services";
import { ImdsManagedIdentityCredential } from "../src/services/imds/imds-credential";
import { AZURITE_ACCOUNT, AZURITE_KEY } from "../src/platform/programs/azurite-server";
import { openBlobState } from "../src/platform/state/blob/blob-state";
import { SqlClient } from "../src/services/sql/client";
import { CAMPAIGN_SUBSCRIPTION, intBetween, prng } from "./campaign-estate";
import { child, type Child } from "./kill-campaign";
import { startWebhookSink } from "./webhook-sink";

/**
 * The replica kill campaign (`npm run chaos:kill -- --replicas 1`): per round, one stack of
 * REPLICA_DATABASES databases on the emulator, two watcher replicas (--auto-remediate, --notify)
 * and a racing CLI `apply --lock-timeout` sharing one state URL on Azurite. Some databases are
 * changed out of band, and the leader is killed with SIGKILL at a random moment after. Checked:
 * every database ends as the stack wants; each drifted database was PUT back exactly once (the
 * emulator counts the PUTs it accepted); the stack's one audit chain verifies (no fork, no lost entry, and it
 * records every repair, a killed leader's in the started entry it wrote before its first PUT); every
 * event any leader enqueued reached the webhook, signed (no event lost).
 */
export const REPLICA_DATABASES = 8;
const SECRET = `whsec_${randomBytes(32).toString("base64")}`;

export interface ReplicaKillResult {
  seed: number;
  converged: boolean;
  drifted: number;
  /** When the leader was killed, in ms after the out-of-band change. */
  at: number;
  /** From the kill to every database repaired, in ms. */
  healedMs: number;
  ms: number;
  failure?: string;
  /** A failed round's log: each process's output and the chain, to see who sent what. */
  log?: string;
}

/** Writes a failed round's evidence beside the other temporary files, and says where. */
function keepRoundLog(seed: number, failure: string | undefined, children: Child[], chain: string): string {
  const file = join(tmpdir(), `stackwarden-replica-kill-${seed}.log`);
  const names = ["replica 1", "replica 2", "racing apply"];
  const parts = children.map((c, i) => `=== ${names[i] ?? `process ${i + 1}`} (pid ${c.proc.pid})\n${c.output.join("")}`);
  writeFileSync(file, [`seed ${seed}: ${failure ?? ""}`, ...parts, `=== the chain\n${chain}`].join("\n"));
  return file;
}

const STACK = (n: number) =>
  [
    "config:",
    `  stackwarden:subscriptionId: ${CAMPAIGN_SUBSCRIPTION}`,
    "  stackwarden:databases:",
    ...Array.from({ length: n }, (_, i) => `    - { resourceGroup: rg, server: s1, database: db${i}, transparentDataEncryption: Enabled }`),
    "",
  ].join("\n");

const SEED = (n: number) =>
  parseSeed(
    "replica-kill.yaml",
    JSON.stringify({
      sql: {
        subscriptionId: CAMPAIGN_SUBSCRIPTION,
        scanDurationMs: 300,
        servers: [
          {
            name: "s1",
            resourceGroup: "rg",
            databases: Array.from({ length: n }, (_, i) => ({ name: `db${i}`, transparentDataEncryption: "Enabled" })),
          },
        ],
      },
    }),
    LOCAL_SERVICES,
  );

async function until(what: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await what().catch(() => false)) return true;
    await sleep(200);
  }
  return false;
}

/** One round (see the module comment), on its own emulator and its own container of `azurite`. */
export async function replicaKillRound(seed: number, azurite: string): Promise<ReplicaKillResult> {
  const started = Date.now();
  const rand = prng(seed);
  const dirs = [0, 1, 2].map(() => mkdtempSync(join(tmpdir(), `stackwarden-replicas-${seed}-`)));
  for (const d of dirs) writeFileSync(join(d, "Pulumi.kill.yaml"), STACK(REPLICA_DATABASES));
  const drifted = Array.from({ length: REPLICA_DATABASES }, (_, i) => i).filter(() => rand() < 0.4);
  if (drifted.length === 0) drifted.push(0);
  const at = intBetween(rand, 0, 4000);
  const children: Child[] = [];
  let emu: RunningEmulator | undefined;
  const sink = await startWebhookSink(SECRET);
  const container = `kill-${seed}`;
  let chain = "";
  const result = (converged: boolean, healedMs: number, failure?: string): ReplicaKillResult => ({
    ...(converged ? {} : { log: keepRoundLog(seed, failure, children, chain) }),
    seed,
    converged,
    drifted: drifted.length,
    at,
    healedMs,
    ms: Date.now() - started,
    ...(failure ? { failure } : {}),
  });
  try {
    emu = await startEmulator({ seed: SEED(REPLICA_DATABASES), onError: () => undefined });
    const sql = new SqlClient({ endpoint: emu.url, credential: new ImdsManagedIdentityCredential({ endpoint: `${emu.url}/metadata` }) });
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      STACKWARDEN_EMULATOR: emu.url,
      STACKWARDEN_STATE_URL: `${azurite}/${container}`,
      STACKWARDEN_STATE_ACCOUNT_KEY: AZURITE_KEY,
      STACKWARDEN_LEASE_SECONDS: "15",
      STACKWARDEN_CAMPAIGN_MS: "500",
      STACKWARDEN_NOTIFY_SECRET: SECRET,
    };
    const watchArgs = [
      "watch",
      "--config",
      "Pulumi.kill.yaml",
      "--interval",
      "1s",
      "--auto-remediate",
      "--notify",
      sink.url,
      "--poll-interval",
      "100",
    ];
    const replicas = [child(watchArgs, env, dirs[0]), child(watchArgs, env, dirs[1])];
    children.push(...replicas);
    const leading = (c: Child) => c.output.join("").includes("leading watch-kill");
    if (!(await until(async () => replicas.some(leading), 30_000))) return result(false, 0, "no replica leads");
    await sleep(2_000); // a few ticks in sync
    // PUTs the emulator accepted: one refused (a repair sent while the out-of-band change's scan
    // still ran is answered 409, and sent again once the scan ends) changed nothing.
    const putsNow = () =>
      Object.entries(emu!.stats.byRoute)
        .filter(([k]) => k.startsWith("PUT "))
        .reduce((n, [k, v]) => n + v - (emu!.stats.refusedByRoute[k] ?? 0), 0);
    const puts0 = putsNow();
    for (const i of drifted)
      await sql.putTransparentDataEncryption(
        { subscriptionId: CAMPAIGN_SUBSCRIPTION, resourceGroup: "rg", server: "s1", database: `db${i}` },
        "Disabled",
      );
    const racing = child(
      ["apply", "--config", "Pulumi.kill.yaml", "--yes", "--lock-timeout", "60s", "--poll-interval", "100"],
      env,
      dirs[2],
    );
    children.push(racing);
    await sleep(at);
    const leader = replicas.find(leading)!;
    leader.proc.kill("SIGKILL");
    const killedAt = Date.now();
    const healed = await until(async () => {
      for (let i = 0; i < REPLICA_DATABASES; i++) {
        const s = await sql.getTransparentDataEncryption({
          subscriptionId: CAMPAIGN_SUBSCRIPTION,
          resourceGroup: "rg",
          server: "s1",
          database: `db${i}`,
        });
        if (s.properties?.status !== "Enabled") return false;
      }
      return true;
    }, 90_000);
    const healedMs = Date.now() - killedAt;
    if (!healed) return result(false, healedMs, "not every database was repaired within 90 s");
    await racing.exited;
    await sleep(3_000); // the survivor's next ticks: nothing more may be sent
    const state = await openBlobState({ serviceUrl: azurite, account: AZURITE_ACCOUNT, container, prefix: "", accountKey: AZURITE_KEY });
    const text = (await state.audit.read("kill")) ?? "";
    chain = text;
    const repairs = putsNow() - puts0 - drifted.length;
    if (repairs !== drifted.length) return result(false, healedMs, `${repairs} repair PUT(s) for ${drifted.length} drifted database(s)`);
    const verdict = verifyTrailText(text);
    if (!verdict.intact) return result(false, healedMs, `the chain does not verify: ${verdict.problems.map((p) => p.message).join("; ")}`);
    // Every repair is on record: in its apply's entry (converged), or, for an apply killed mid-way,
    // in the started entry it wrote before its first PUT.
    const onRecord = new Set(
      text
        .trim()
        .split("\n")
        .flatMap((l) => (JSON.parse(l) as { what: { resource: string; outcome: string }[] }).what)
        .filter((w) => w.outcome === "converged" || w.outcome === "started")
        .map((w) => w.resource.split("/").pop()),
    );
    const missing = drifted.map((i) => `db${i}`).filter((db) => !onRecord.has(db));
    if (missing.length) return result(false, healedMs, `the chain has no record of the repair of ${missing.join(", ")}`);
    // No event lost: whatever any leader enqueued (in the shared outbox) is delivered, by it or by
    // the next one with the same webhook-id; nothing is dead-lettered.
    const delivered = await until(async () => (await state.events.list("outbox/")).length === 0, 30_000);
    if (!delivered)
      return result(false, healedMs, `${(await state.events.list("outbox/")).length} event(s) still pending in the shared outbox`);
    if (await state.events.get("dead-letter.jsonl")) return result(false, healedMs, "an event was dead-lettered");
    if (sink.rejected) return result(false, healedMs, `${sink.rejected} delivery(ies) failed their signature`);
    return result(true, healedMs);
  } catch (e) {
    return result(false, 0, `the round failed: ${(e as Error).stack ?? String(e)}`);
  } finally {
    for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
    await Promise.all(children.map((c) => c.exited));
    await emu?.close().catch(() => undefined);
    await sink.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** Runs `rounds` rounds from `seed`, `parallel` at a time, on one Azurite. */
export async function runReplicaKillCampaign(opts: {
  seed: number;
  rounds: number;
  parallel?: number;
  azurite: string;
  onRound?: (r: ReplicaKillResult, done: number) => void;
}): Promise<{ results: ReplicaKillResult[]; converged: number; failingSeeds: number[]; ms: number }> {
  return runRounds(opts, (seed) => replicaKillRound(seed, opts.azurite));
}
