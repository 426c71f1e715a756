import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { FileLockStore } from "../../../src/platform/state/files/file-lock-store";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AuditEntry } from "../../../src/domain/audit/audit-entry";
import { acquireStackLock } from "../../../src/domain/reconcile/stack-lock";
import { G } from "../../domain/stack/bad-stacks";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli, stackDir } from "./cli-harness";
import { thisProcess } from "../../../src/platform/process-identity";

// `apply` under the stack lock with its audit entry, in-process against the emulator.

const SEED = `
sql:
  scanDurationMs: 100
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: a, transparentDataEncryption: Disabled }
        - { name: b, transparentDataEncryption: Disabled }
`;
const stack = (db: string) =>
  `config:\n  stackwarden:subscriptionId: ${G}\n  stackwarden:databases:\n    - { resourceGroup: rg, server: s1, database: ${db}, transparentDataEncryption: Enabled }\n`;

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
});
afterAll(() => t.close());

const puts = () =>
  Object.entries(t.emu.stats.byRoute)
    .filter(([k]) => k.startsWith("PUT "))
    .reduce((n, [, v]) => n + v, 0);

it("apply records who, what, the commit and the exit code; the token is not in the trail", async () => {
  const dir = stackDir({ "Pulumi.one.yaml": stack("a") });
  const r = await runCli(["apply", "--config", "Pulumi.one.yaml", "--yes", "--poll-interval", "50"], t.url, dir);
  expect(r.code, r.err).toBe(0);
  expect(r.err).toContain("stackwarden apply: audit entry 1 written to .stackwarden/audit");
  const raw = readFileSync(join(dir, ".stackwarden", "audit", "one.jsonl"), "utf8");
  const e = JSON.parse(raw) as AuditEntry;
  expect(e).toMatchObject({ seq: 1, stack: "one", command: "apply", commit: null, exitCode: 0 });
  expect(e.who).toMatchObject({ claims: "decoded", tid: expect.any(String), oid: expect.any(String), appid: expect.any(String) });
  expect(e.who.vm).toMatchObject({ signatureVerified: true });
  expect(e.what).toEqual([expect.objectContaining({ before: "Disabled", after: "Enabled", outcome: "converged" })]);
  const token = (await t.credential.getToken("https://management.azure.com/.default")).token;
  expect(raw).not.toContain(token);
  expect(raw).not.toContain(token.split(".")[1]);
});

it("a held lock: apply fails at once in one line, nothing is sent, nothing is recorded", async () => {
  const dir = stackDir({ "Pulumi.held.yaml": stack("b") });
  const lock = await acquireStackLock(new FileLockStore(join(dir, ".stackwarden", "locks")), {
    stack: "held",
    command: "watch",
    holderProcess: thisProcess(),
  });
  try {
    const before = puts();
    const r = await runCli(["apply", "--config", "Pulumi.held.yaml", "--yes"], t.url, dir);
    expect(r.code).toBe(1);
    expect(r.err.split("\n")).toHaveLength(1);
    expect(r.err).toMatch(
      new RegExp(`^stackwarden: SW_LOCK_HELD: stack held is locked by pid ${process.pid} on host \\S+ since \\S+ \\(watch, `),
    );
    expect(puts() - before).toBe(0);
  } finally {
    await lock.release();
  }
});

it("a trail whose last line was cut off: apply refuses before changing anything", async () => {
  const dir = stackDir({ "Pulumi.cut.yaml": stack("b") });
  mkdirSync(join(dir, ".stackwarden", "audit"), { recursive: true });
  writeFileSync(join(dir, ".stackwarden", "audit", "cut.jsonl"), '{"seq":1,"at":"2026-01-01');
  const before = puts();
  const r = await runCli(["apply", "--config", "Pulumi.cut.yaml", "--yes"], t.url, dir);
  expect(r.code).toBe(1);
  expect(r.err).toMatch(/the audit trail .*cut\.jsonl ends in a partial line .*run `stackwarden audit verify`/);
  expect(puts() - before).toBe(0);
});

it("apply --output json: stdout is one document (exit code, each change, the audit entry), the progress is on stderr", async () => {
  const dir = stackDir({ "Pulumi.json.yaml": stack("b") });
  const r = await runCli(["apply", "--config", "Pulumi.json.yaml", "--yes", "--poll-interval", "50", "--output", "json"], t.url, dir);
  expect(r.code, r.err).toBe(0);
  const doc = JSON.parse(r.out) as { stack: string; exitCode: number; changes: unknown[]; audited: { seq: number } | null };
  expect(doc).toMatchObject({ stack: "json", engine: "native", exitCode: 0, probes: null });
  expect(doc.audited).toMatchObject({ seq: 1 });
  expect(doc.changes).toEqual([expect.objectContaining({ before: "Disabled", after: "Enabled", outcome: "converged" })]);
  expect(r.err).toContain("stackwarden apply: audit entry 1 written to .stackwarden/audit");
});
