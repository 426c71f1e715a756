import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newClientSet } from "../../../src/clients/client-set";
import { acquireStackLock } from "../../../src/domain/reconcile/stack-lock";
import { loadStackFile } from "../../../src/usecases/stack-file";
import { openStateStores } from "../../../src/platform/state/open-state";
import { StackStatusReporter } from "../../../src/interfaces/watch/stack-status-reporter";
import type { StackStatus } from "../../../src/interfaces/watch/status/stack-status";
import { StatusBoard } from "../../../src/interfaces/watch/status/status-board";
import { WatchMetrics } from "../../../src/interfaces/watch/watch-metrics";
import { Watcher } from "../../../src/usecases/watcher";
import { SqlClient } from "../../../src/services/sql/client";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { deadUrl } from "../../helpers/dead-url";
import { expectValid } from "./status-schema";
import { eventually } from "./watch-metrics";
import { thisProcess } from "../../../src/platform/process-identity";

// The reasons a watched stack's condition takes from what really failed in its ticks: the real
// watcher, its status reporter and board, against the emulator (or nothing at all). A failure that
// needs a person stalls the stack at once; a transient one is retried, and stalls only when it lasts.

const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: orders, transparentDataEncryption: Disabled }
`;
const STACK = (database: string) =>
  `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n    - { resourceGroup: rg, server: s1, database: ${database}, transparentDataEncryption: Enabled }\n`;

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
});
afterAll(() => t?.close());

/** Runs `ticks` ticks of a real watcher over `stackText` and returns the stack's status after each. */
async function watch(opts: {
  stackText: string;
  endpoint: string;
  ticks: number;
  autoRemediate?: boolean;
  before?: (dir: string) => Promise<void> | void;
  /** Collects every status the board takes, not only each tick's last. */
  every?: StackStatus[];
}): Promise<StackStatus[]> {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-reasons-"));
  const file = join(dir, "Pulumi.s.yaml");
  writeFileSync(file, opts.stackText);
  await opts.before?.(dir);
  const env = { STACKWARDEN_ARM_ENDPOINT: opts.endpoint, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint };
  const clients = newClientSet(env);
  const state = await openStateStores({ cwd: dir, env: {} });
  const board = new StatusBoard();
  board.register("s", { file: "Pulumi.s.yaml" });
  const seen: StackStatus[] = [];
  board.subscribe((c) => {
    if (c.current) opts.every?.push(c.current);
    if (c.current?.lastTick && c.current.lastTick.number > (seen.at(-1)?.lastTick?.number ?? 0)) seen.push(c.current);
  });
  const metrics = new WatchMetrics();
  metrics.addStack("s");
  try {
    await new Watcher({
      stackName: "s",
      loadStack: () => loadStackFile(file, {}, dir),
      schedule: { kind: "interval", ms: 1 },
      clients,
      cwd: dir,
      state,
      commitOf: async () => null,
      autoApply: false,
      autoRemediate: !!opts.autoRemediate,
      lockTimeoutMs: 0,
      graceMs: 1000,
      maxTicks: opts.ticks,
      concurrency: 4,
      scanTimeoutMs: 10_000,
      pollIntervalMs: 50,
      metrics,
      status: new StackStatusReporter(board, "s", state),
      log: () => {},
    }).run();
  } finally {
    metrics.close();
    await clients.close();
  }
  for (const s of seen) expectValid("StackStatus", s);
  return seen;
}

const conditionOf = (s: StackStatus) => [s.condition.type, s.condition.reason, s.condition.code];

describe("a failure that needs a person stalls the stack at once", () => {
  it("an invalid stack file: Stalled, StackFileInvalid, SW_CONFIG_INVALID, from the first tick", async () => {
    const seen = await watch({ stackText: STACK("orders").replace("Enabled", "Encrypted"), endpoint: t.url, ticks: 1 });
    expect(seen.map(conditionOf)).toEqual([["Stalled", "StackFileInvalid", "SW_CONFIG_INVALID"]]);
    expect(seen[0].lastTick).toMatchObject({ outcome: "failed", errorCode: "SW_CONFIG_INVALID", consecutiveFailures: 1 });
    expect(seen[0].condition.message).toMatch(
      /^tick 1 failed and needs a person \(retrying will not help\): Pulumi\.s\.yaml:4:\d+: config\.stackwarden:databases\[0\]\.transparentDataEncryption: /,
    );
  });

  it("a database the cloud does not have: Stalled, ResourceNotFound, SW_RESOURCE_NOT_FOUND", async () => {
    const seen = await watch({ stackText: STACK("ghost"), endpoint: t.url, ticks: 1 });
    expect(seen.map(conditionOf)).toEqual([["Stalled", "ResourceNotFound", "SW_RESOURCE_NOT_FOUND"]]);
    expect(seen[0].condition.message).toContain("1 database(s) of the stack could not be read (rg/s1/ghost)");
  });
});

describe("a transient failure is retried, and stalls only when it lasts", () => {
  it("an endpoint nothing answers at: Reconciling, EndpointUnreachable, twice; then Stalled, TickFailing", async () => {
    const seen = await watch({ stackText: STACK("orders"), endpoint: await deadUrl(), ticks: 3 });
    expect(seen.map(conditionOf)).toEqual([
      ["Reconciling", "EndpointUnreachable", "SW_ENDPOINT_UNREACHABLE"],
      ["Reconciling", "EndpointUnreachable", "SW_ENDPOINT_UNREACHABLE"],
      ["Stalled", "TickFailing", "SW_ENDPOINT_UNREACHABLE"],
    ]);
    expect(seen[2].condition.message).toMatch(/^3 ticks in a row failed: /);
    // Nothing was ever read: both answers are unknown (a stack is never shown in sync for want of a read).
    expect(seen.map((s) => [s.sync.state, s.compliance.state])).toEqual(Array(3).fill(["unknown", "unknown"]));
  }, 90_000);

  it("a repair while another process holds the stack's lock: Reconciling, WaitingForLock, SW_LOCK_HELD", async () => {
    let release: (() => Promise<void>) | undefined;
    const seen = await watch({
      stackText: STACK("orders"),
      endpoint: t.url,
      ticks: 1,
      autoRemediate: true,
      before: async (dir) => {
        const lock = await acquireStackLock((await openStateStores({ cwd: dir, env: {} })).locks, {
          stack: "s",
          command: "apply",
          holderProcess: thisProcess(),
        });
        release = () => lock.release();
      },
    });
    await release?.();
    expect(seen.map(conditionOf)).toEqual([["Reconciling", "WaitingForLock", "SW_LOCK_HELD"]]);
    expect(seen[0].lock.state).toBe("held");
  });
});

describe("a repair by the watcher itself", () => {
  it("shows as the deployment as soon as it ends, read from its audit entry, then the answers turn to in sync and compliant", async () => {
    const sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
    const orders = { subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: "orders" };
    try {
      const every: StackStatus[] = [];
      await watch({ stackText: STACK("orders"), endpoint: t.url, ticks: 1, autoRemediate: true, every });
      const seen = every;
      expect(seen.map(conditionOf)).toEqual([
        ["Reconciling", "AwaitingFirstTick", null],
        ["Reconciling", "Remediating", null],
        ["Reconciling", "AwaitingFirstTick", null],
        ["Ready", "Reconciled", null],
      ]);
      // The drift to repair shows first (drift.detected is derived from it), by the sweep: no change record named who.
      expect(seen[0].drift).toMatchObject({ state: "drifted", resources: [{ label: "rg/s1/orders", changedBy: null }] });
      expect(seen[1].deployment).toMatchObject({ state: "applying", applying: "remediation", last: null, lastApply: null });
      // The repair's end: the deployment is its audit entry, before the tick's read of the trail.
      const repaired = seen[2];
      expect(repaired.deployment).toMatchObject({
        state: "succeeded",
        last: { seq: 1, command: "remediate", outcome: "succeeded", what: { outcomes: { converged: 1 } } },
        lastApply: { trigger: "remediation", exitCode: 0, converged: 1, auditSeq: 1 },
      });
      expect(seen[3].deployment).toEqual(repaired.deployment);
      expect([seen[3].sync.state, seen[3].compliance.state]).toEqual(["in-sync", "compliant"]);
    } finally {
      await sql.putTransparentDataEncryption(orders, "Disabled");
      await eventually("the decryption scan to end", async () =>
        (await sql.listTransparentDataEncryptionActivities(orders)).length === 0 ? true : undefined,
      );
    }
  });
});
