import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newClientSet } from "../../src/clients/client-set";
import type { AuditEntry } from "../../src/domain/audit/audit-entry";
import { loadStackFile } from "../../src/usecases/stack-file";
import { openMemoryState } from "../../src/platform/state/memory/memory-state";
import { openWatch, type WatchRequest } from "../../src/usecases/watch";
import type { StackStatusPort, TickEnded, WatchApplyRecord, WatchSurface } from "../../src/usecases/watch-ports";
import { WatchMetrics } from "../../src/interfaces/watch/watch-metrics";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { eventually } from "../interfaces/watch/watch-metrics";

// The watch process as a use case, below any command: two replicas of it on one shared state, each
// with a surface of its own (metrics, and statuses recorded as they are reported), elect one leader
// that ticks and repairs the drift once; the other stands by, refuses pushed change records, and
// takes over when the leader stops.

const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  scanDurationMs: 100
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: orders, transparentDataEncryption: Disabled }
`;
const STACK = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n    - { resourceGroup: rg, server: s1, database: orders, transparentDataEncryption: Enabled }\n`;

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
});
afterAll(() => t?.close());

/** A surface that keeps what the process reports: roles, registrations, each tick and apply. */
function recordingSurface() {
  const seen = {
    roles: [] as string[],
    registered: [] as string[],
    ticks: [] as TickEnded[],
    applies: [] as WatchApplyRecord[],
    adopted: 0,
  };
  const metrics = new WatchMetrics();
  const reporter: StackStatusPort = {
    applying: () => {},
    judged: () => {},
    notApplied: () => {},
    applied: (r) => void seen.applies.push(r),
    recovered: () => {},
    ticked: async (tick) => void seen.ticks.push(tick),
  };
  const surface: WatchSurface = {
    meter: metrics,
    statuses: {
      adoptStored: async () => void seen.adopted++,
      register: (stack, info) => void seen.registered.push(`${stack} ${info.file} (${info.schedule})`),
      role: (role) => void seen.roles.push(role),
      reporter: () => reporter,
    },
    close: async () => metrics.close(),
  };
  return { seen, surface };
}

describe("openWatch: the watch process without the CLI", () => {
  it("one leader ticks and repairs once; the standby refuses pushed records and takes over when the leader stops", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-watch-usecase-"));
    const file = join(dir, "Pulumi.s.yaml");
    writeFileSync(file, STACK);
    const state = openMemoryState("shared");
    const clients = newClientSet({ STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint });
    const lines: string[] = [];
    const request = (name: string): WatchRequest => ({
      stacks: [{ name: "s", file: "Pulumi.s.yaml", load: () => loadStackFile(file, {}, dir) }],
      group: "watch-s",
      schedule: { kind: "interval", ms: 60_000 },
      clients,
      state,
      cwd: dir,
      autoApply: false,
      autoRemediate: true,
      lockTimeoutMs: 0,
      graceMs: 1000,
      concurrency: 4,
      scanTimeoutMs: 10_000,
      pollIntervalMs: 50,
      campaignMs: 50,
      log: (line) => lines.push(`${name}: ${line}`),
    });
    const puts = () =>
      Object.entries(t.emu.stats.byRoute)
        .filter(([k]) => k.startsWith("PUT "))
        .reduce((n, [, v]) => n + v, 0);
    const a = recordingSurface();
    const b = recordingSurface();
    try {
      const first = await openWatch(request("a"), async () => a.surface);
      const runFirst = first.run();
      await eventually("the first replica's repair", async () => (a.seen.applies.length > 0 ? true : undefined));
      expect(a.seen.roles).toEqual(["leader"]);
      expect(a.seen.registered).toEqual(["s Pulumi.s.yaml (every 1m)"]);
      expect(a.seen.applies).toEqual([expect.objectContaining({ trigger: "remediation", exitCode: 0, converged: 1, failed: 0 })]);
      expect(first.readiness()).toEqual({ ready: true, reason: expect.stringMatching(/^tick 1 finished/) });
      expect(first.acceptChanges([])).toBe(0);

      const second = await openWatch(request("b"), async () => b.surface);
      const runSecond = second.run();
      await eventually("the second replica standing by", async () => (b.seen.roles.includes("standby") ? true : undefined));
      expect(second.readiness()).toEqual({ ready: true, reason: "standing by (another replica leads)" });
      expect((await second.replica()).leader).toMatchObject({ pid: process.pid, command: "watch", stack: "watch-s" });
      // A standby refuses pushed change records (Event Grid delivers them again, to the leader).
      expect(second.acceptChanges([])).toBeUndefined();
      expect(b.seen.ticks).toEqual([]);

      first.stop("the test stops the leader");
      expect(await runFirst).toBe(1);
      await eventually("the standby's takeover and first tick", async () => (b.seen.ticks.length > 0 ? true : undefined));
      expect(b.seen.roles.at(-1)).toBe("leader");
      expect(b.seen.ticks[0]).toMatchObject({ number: 1, outcome: "succeeded", drift: [] });
      // The drift was repaired once, by the first leader; the second found nothing to do.
      expect(puts()).toBe(1);
      expect(b.seen.applies).toEqual([]);
      second.stop("the test stops the second");
      expect(await runSecond).toBe(1);
      const entries = ((await state.audit.read("s")) ?? "")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as AuditEntry);
      expect(entries.map((e) => [e.command, e.exitCode, e.what.map((w) => `${w.before}->${w.after} ${w.outcome}`)])).toEqual([
        ["remediate", 0, ["Disabled->Enabled converged"]],
      ]);
      expect(lines).toContain("a: stopping: the test stops the leader");
    } finally {
      await clients.close();
    }
  });
});
