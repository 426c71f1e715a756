import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AuditEntry } from "../../../src/domain/audit/audit-entry";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli, stackDir } from "./cli-harness";

// Remediation of databases found in a stack's scope is opt-in (scope.remediate): without it, plan
// shows what apply would do to them and apply sends them no PUT (counted at the emulator); with it,
// one PUT each, under the same lock and audit entry; a scope exemption keeps a database out either way.

const G = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  scanDurationMs: 100
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: listed, transparentDataEncryption: Disabled }
        - { name: found, transparentDataEncryption: Disabled }
        - { name: sandbox, transparentDataEncryption: Disabled, tags: { lifecycle: sandbox } }
`;
const stack = (remediate: boolean) => `config:
  stackwarden:subscriptionId: ${G}
  stackwarden:databases:
    - { resourceGroup: rg, server: s1, database: listed, transparentDataEncryption: Enabled }
  stackwarden:scope:
    remediate: ${remediate}
    exemptions:
      - { tag: lifecycle=sandbox, reason: sandbox }
`;

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
});
afterAll(() => t.close());

const puts = () =>
  Object.entries(t.emu.stats.byRoute)
    .filter(([k]) => k.startsWith("PUT "))
    .reduce((n, [, v]) => n + v, 0);

interface PlanDoc {
  changes: { database: string }[];
  held?: { database: string; live: string; desired: string }[];
}

it("without scope.remediate: plan holds the discovered changes, apply sends them no PUT; with it, one PUT each, audited", async () => {
  const dir = stackDir({ "Pulumi.s.yaml": stack(false) });
  const plan = await runCli(["plan", "--config", "Pulumi.s.yaml", "--output", "json"], t.url, dir);
  expect(plan.code, plan.err).toBe(2);
  const doc = JSON.parse(plan.out) as PlanDoc;
  expect(doc.changes.map((c) => c.database)).toEqual(["listed"]);
  expect(doc.held?.map((c) => [c.database, c.live, c.desired])).toEqual([
    ["found", "Disabled", "Enabled"],
    ["sandbox", "Disabled", "Enabled"],
  ]);
  const table = await runCli(["plan", "--config", "Pulumi.s.yaml"], t.url, dir);
  expect(table.out).toMatch(/! rg\/s1\/found .*scope\.remediate is off/);

  const before = puts();
  const off = await runCli(["apply", "--config", "Pulumi.s.yaml", "--yes", "--poll-interval", "50"], t.url, dir);
  expect(off.code, off.err).toBe(0);
  expect(puts() - before).toBe(1); // the listed database only
  const afterOff = JSON.parse((await runCli(["plan", "--config", "Pulumi.s.yaml", "--output", "json"], t.url, dir)).out) as PlanDoc;
  expect(afterOff.changes).toEqual([]);
  expect(afterOff.held?.map((c) => c.database)).toEqual(["found", "sandbox"]);

  writeFileSync(join(dir, "Pulumi.s.yaml"), stack(true));
  const mid = puts();
  const on = await runCli(["apply", "--config", "Pulumi.s.yaml", "--yes", "--poll-interval", "50"], t.url, dir);
  expect(on.code, on.err).toBe(0);
  expect(puts() - mid).toBe(1); // found; sandbox is exempt
  const entries = readFileSync(join(dir, ".stackwarden", "audit", "s.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as AuditEntry);
  expect(entries.at(-1)!.what).toEqual([
    expect.objectContaining({
      resource: expect.stringMatching(/\/databases\/found$/),
      before: "Disabled",
      after: "Enabled",
      outcome: "converged",
    }),
  ]);
  const last = JSON.parse((await runCli(["plan", "--config", "Pulumi.s.yaml", "--output", "json"], t.url, dir)).out) as PlanDoc;
  expect([last.changes, last.held?.map((c) => c.database)]).toEqual([[], ["sandbox"]]);
});
