import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PersistedState } from "../src/emulator/state-store";

/** A small, fast pseudo-random generator (mulberry32): the same seed gives the same run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0 || 0x9e3779b9;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A number in [lo, hi), from a generator. */
export const between = (rand: () => number, lo: number, hi: number) => lo + rand() * (hi - lo);
/** An integer in [lo, hi], from a generator. */
export const intBetween = (rand: () => number, lo: number, hi: number) => Math.floor(between(rand, lo, hi + 1));

export const CAMPAIGN_SUBSCRIPTION = "00000000-0000-0000-0000-000000000000";

export interface CampaignDatabase {
  server: string;
  name: string;
  live: "Enabled" | "Disabled";
  desired: "Enabled" | "Disabled";
}

/** A stack of `count` databases over a few servers, with random live and desired TDE states. */
export function campaignEstate(rand: () => number, count: number): CampaignDatabase[] {
  const servers = Math.max(1, Math.ceil(count / 10));
  return Array.from({ length: count }, (_, i) => ({
    server: `sql-chaos-${i % servers}`,
    name: `db${String(i).padStart(3, "0")}`,
    live: rand() < 0.5 ? "Enabled" : "Disabled",
    desired: rand() < 0.5 ? "Enabled" : "Disabled",
  }));
}

/** Writes the emulator's seed (JSON is YAML) and the stack file for an estate; returns their paths. */
export function writeCampaignFiles(
  dir: string,
  dbs: readonly CampaignDatabase[],
  opts: { scanDurationMs: number },
): { seed: string; stack: string } {
  const byServer = new Map<string, CampaignDatabase[]>();
  for (const d of dbs) byServer.set(d.server, [...(byServer.get(d.server) ?? []), d]);
  const seed = {
    emulator: { pageSize: 100, tokenTtlSeconds: 3600 },
    sql: {
      subscriptionId: CAMPAIGN_SUBSCRIPTION,
      scanDurationMs: opts.scanDurationMs,
      servers: [...byServer].map(([name, list]) => ({
        name,
        resourceGroup: "rg-chaos",
        databases: list.map((d) => ({ name: d.name, transparentDataEncryption: d.live })),
      })),
    },
  };
  const stack = [
    "config:",
    `  stackwarden:subscriptionId: ${CAMPAIGN_SUBSCRIPTION}`,
    "  stackwarden:databases:",
    ...dbs.map(
      (d) => `    - { resourceGroup: rg-chaos, server: ${d.server}, database: ${d.name}, transparentDataEncryption: ${d.desired} }`,
    ),
    "",
  ].join("\n");
  const paths = { seed: join(dir, "seed.yaml"), stack: join(dir, "Pulumi.chaos.yaml") };
  writeFileSync(paths.seed, JSON.stringify(seed, null, 1));
  writeFileSync(paths.stack, stack);
  return paths;
}

/**
 * Where a persisted (or in-memory) state differs from the stack: databases whose TDE is not the
 * desired one, or whose scan still runs. Empty when the state matches.
 */
export function stateMismatches(state: PersistedState, dbs: readonly CampaignDatabase[]): string[] {
  const sql = state.services.sql as {
    servers: { name: string; databases: { name: string; transparentDataEncryption: string; tdeScan?: unknown }[] }[];
  };
  const problems: string[] = [];
  for (const d of dbs) {
    const live = sql.servers.find((s) => s.name === d.server)?.databases.find((x) => x.name === d.name);
    if (!live) problems.push(`${d.server}/${d.name}: missing from the state`);
    else if (live.transparentDataEncryption !== d.desired)
      problems.push(`${d.server}/${d.name}: ${live.transparentDataEncryption}, desired ${d.desired}`);
    else if (live.tdeScan) problems.push(`${d.server}/${d.name}: a scan still runs`);
  }
  return problems;
}
