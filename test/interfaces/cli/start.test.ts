import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import type { StoredProbeRun } from "../../../src/domain/probes/probe-results-store";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { runCliProcess } from "../../helpers/cli-process";

// npm start keeps its probe results for check; here, outside the checkout.
const probeDir = mkdtempSync(join(tmpdir(), "stackwarden-start-"));
afterAll(() => rmSync(probeDir, { recursive: true, force: true }));

it("npm start's job (stackwarden start) reconciles the dev stack on the embedded emulator, probes its issuers and exits 0", async () => {
  const r = await runCliProcess(["start"], { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, STACKWARDEN_PROBE_DIR: probeDir } });
  expect(r.code, r.stderr).toBe(0);
  const [plan, apply, again, probe, check] = [
    "== 1. plan ==",
    "== 2. apply ==",
    "== 3. plan again ==",
    "== 4. probe ==",
    "== 5. check ==",
  ].map((h) => r.stdout.indexOf(h));
  expect(plan).toBeGreaterThanOrEqual(0);
  expect(apply).toBeGreaterThan(plan);
  expect(again).toBeGreaterThan(apply);
  expect(probe).toBeGreaterThan(again);
  expect(check).toBeGreaterThan(probe);
  expect(r.stdout.slice(plan, apply)).toMatch(/~ rg-data\/sql-prod-1\/orders\s+TDE Disabled -> Enabled/);
  expect(r.stdout.slice(apply, again)).toMatch(/rg-data\/sql-prod-1\/orders: done: TDE Enabled/);
  expect(r.stdout.slice(apply, again)).toMatch(/Apply: (\d+) of \1 change\(s\) converged\./);
  expect(r.stdout.slice(again, probe)).toContain("no changes");
  // The probes ran against the embedded emulator's issuers, with the example stack's demo parameters.
  const probing = r.stdout.slice(probe, check);
  expect(probing).toMatch(/Probes of stack dev against http:\/\/127\.0\.0\.1:\d+\/apisetu/);
  for (const target of ["newindia/hlipc", "swavlambancard/govid", "mbose/sscer", "lawcollegeandaman/trcer"]) {
    expect(probing).toMatch(new RegExp(`PASS {2}\\S+ +${target.replace("/", "\\/")} `));
  }
  expect(probing).toContain("4 probe(s): 4 passed, 0 failed");
  const kept = JSON.parse(readFileSync(join(probeDir, "dev.json"), "utf8")) as StoredProbeRun;
  expect(kept).toMatchObject({ stack: "dev", command: "start" });
  expect(kept.results.map((x) => x.outcome)).toEqual(["passed", "passed", "passed", "passed"]);
  // check judged those results.
  const checking = r.stdout.slice(check);
  expect(checking).toContain("0 mandatory violation(s)");
  // The dev stack's job scripts (stackwarden:artifacts) were scanned by the embedded emulator, and are clean.
  expect(checking).toMatch(/; 2 artifact\(s\) scanned\.$/m);
  // The tally counts them as passed; no finding of theirs is listed (the table lists failures, exempt and unknown).
  expect(checking).toMatch(/^\s*artifact-signature-clean\s+0\s+0\s+0\s+\d+\s+0$/m);
  expect(checking).not.toMatch(/^\s*(FAIL|ADVISORY|EXEMPT|UNKNOWN|N\/A)\s+artifact-(signature-clean|packed)\s/m);
  expect(checking).toMatch(/note: post-deploy-probes judges the last probe run \(.*dev\.json\): `start` finished/);
  expect(checking).not.toMatch(/post-deploy-probes\s+\S+\s+(Probe|probe)/); // no failed or unjudged probe
  expect(checking).toMatch(/ADVISORY\s+sql-tier-advisor-drift\s+rg-data\/sql-prod-1\/customers/);
  // Key custody: sql-prod-2's TDE protector is service-managed (advisory); sql-prod-1's key and vault are healthy.
  expect(checking).toMatch(/ADVISORY\s+sql-tde-customer-managed-key\s+rg-data\/sql-prod-2\s+SQL server rg-data\/sql-prod-2 must protect/);
  expect(checking).not.toMatch(/(FAIL|ADVISORY)\s+tde-key-(vault-recoverable|validity)/);
  expect(r.stdout).toMatch(/Probes: 4 of 4 passed\./);
  // The closing line counts what the apply changed (the plan's changes), the scope's discovered database among them, not the file's entries.
  const changes = r.stdout.slice(plan, apply).match(/^\s+~ \S+\s+TDE Disabled -> Enabled$/gm)!.length;
  const done = /^Done: TDE enabled on (\d+) database\(s\) \((\d+) listed, (\d+) discovered\); the stack has converged\./m.exec(r.stdout);
  expect(done, r.stdout).not.toBeNull();
  expect([Number(done![1]), Number(done![2]) + Number(done![3])]).toEqual([changes, changes]);
  expect(Number(done![3])).toBeGreaterThan(0);
}, 60_000);
