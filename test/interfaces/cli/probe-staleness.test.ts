import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredProbeRun } from "../../../src/domain/probes/probe-results-store";
import type { CommandIO } from "../../../src/interfaces/cli/command-io";
import { main } from "../../../src/interfaces/cli/main";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { devEstate } from "../../services/certificates/certificates-kit";
import { stackDir } from "./cli-harness";

// Probe results carry where and when they were taken; `check` judges them only for the issuers
// they were taken against, and only when newer than the stack's last change (its audit trail) and
// than `post-deploy-probes.maxAgeHours`. Otherwise it says they are stale and judges no probe.

const SUB = "00000000-0000-0000-0000-000000000000";
const stack = (policies = "") => `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg-data, server: sql-prod-1, database: orders, transparentDataEncryption: Enabled }
${policies}  stackwarden:probes:
    - name: transfer-certificate
      issuer: lawcollegeandaman
      doctype: trcer
      parameters: { admissionNo: "\${env:TC_ADMN:-99123}", fullName: "\${env:TC_NAME:-Arun Ekka}" }
`;

let a: TestEmulator;
let b: TestEmulator;
beforeAll(async () => {
  [a, b] = await Promise.all([startTestEmulator({ seed: devEstate() }), startTestEmulator({ seed: devEstate() })]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

async function run(dir: string, emulator: TestEmulator, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    isTTY: false,
    cwd: dir,
    exitCode: 0,
    env: { PATH: process.env.PATH, STACKWARDEN_EMULATOR: emulator.url },
  };
  const code = await main(argv, io);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

interface Report {
  findings: { ruleId: string; verdict: string; message: string }[];
  notes?: string[];
}
async function probeVerdicts(dir: string, emulator: TestEmulator, file: string): Promise<{ verdicts: string[]; report: Report }> {
  const r = await run(dir, emulator, "check", "--config", file, "--output", "json");
  const report = JSON.parse(r.out) as Report;
  return { verdicts: report.findings.filter((f) => f.ruleId === "post-deploy-probes").map((f) => f.verdict), report };
}

describe("the probe results check judges", () => {
  it("are kept with where (the issuers' endpoint) and when (start and finish) they were taken", async () => {
    const dir = stackDir({ "Pulumi.s.yaml": stack() });
    expect((await run(dir, a, "probe", "--config", "Pulumi.s.yaml")).code).toBe(0);
    const kept = JSON.parse(readFileSync(join(dir, ".stackwarden", "probes", "s.json"), "utf8")) as StoredProbeRun;
    expect(kept.endpoint).toBe(`${a.url}/apisetu`);
    expect(Date.parse(kept.startedAt)).toBeLessThanOrEqual(Date.parse(kept.finishedAt));
    expect((await probeVerdicts(dir, a, "Pulumi.s.yaml")).verdicts).toEqual(["pass"]);
  });

  it("taken against other issuers (an emulator that no longer runs there): stale, not evaluated, and the note says why", async () => {
    const dir = stackDir({ "Pulumi.s.yaml": stack() });
    expect((await run(dir, a, "probe", "--config", "Pulumi.s.yaml")).code).toBe(0);
    const { verdicts, report } = await probeVerdicts(dir, b, "Pulumi.s.yaml");
    expect(verdicts).toEqual(["not-applicable"]);
    const finding = report.findings.find((f) => f.ruleId === "post-deploy-probes")!;
    expect(finding.message).toContain(
      `its last result is stale (they were taken against ${a.url}/apisetu, and the issuers are now ${b.url}/apisetu (set by STACKWARDEN_EMULATOR))`,
    );
    expect(report.notes?.join("\n")).toMatch(
      /post-deploy-probes does not judge the last probe run .*: its results are stale, they were taken against/,
    );
    // Probed again against these issuers: judged again.
    expect((await run(dir, b, "probe", "--config", "Pulumi.s.yaml")).code).toBe(0);
    expect((await probeVerdicts(dir, b, "Pulumi.s.yaml")).verdicts).toEqual(["pass"]);
  });

  it("taken by `npm start` (its own embedded emulator, gone since): no stale note, one short line, the probes have no result yet", async () => {
    const dir = stackDir({ "Pulumi.s.yaml": stack() });
    expect((await run(dir, a, "probe", "--config", "Pulumi.s.yaml")).code).toBe(0);
    // What `stackwarden start` keeps: the same run, recorded under its command.
    const file = join(dir, ".stackwarden", "probes", "s.json");
    writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, "utf8")) as StoredProbeRun), command: "start" }));
    const table = await run(dir, b, "check", "--config", "Pulumi.s.yaml");
    const probeLines = table.out.split("\n").filter((l) => /probe/i.test(l) && !/^\s+post-deploy-probes\s+\d/.test(l));
    expect(probeLines).toEqual([
      "  note: post-deploy-probes has no probe results for these issuers yet (the last run was `npm start`'s, of its own emulator): `stackwarden probe` takes them",
    ]);
    expect(table.out).not.toMatch(/stale/);
    const shown = await run(dir, b, "check", "--config", "Pulumi.s.yaml", "--show", "not-applicable");
    expect(shown.out.split("\n").filter((l) => /^\s+N\/A\s+post-deploy-probes/.test(l))).toEqual([
      expect.stringMatching(
        /^ {2}N\/A +post-deploy-probes +1 finding\(s\) +no result yet: run `stackwarden probe` \(--verbose lists each\)$/,
      ),
    ]);
    // Against the issuers it probed, its results are judged as any run's.
    expect((await probeVerdicts(dir, a, "Pulumi.s.yaml")).verdicts).toEqual(["pass"]);
  });

  it("taken before the stack's last apply (its audit trail): stale until probed again", async () => {
    const dir = stackDir({ "Pulumi.s.yaml": stack() });
    expect((await run(dir, a, "probe", "--config", "Pulumi.s.yaml")).code).toBe(0);
    const applied = await run(dir, a, "apply", "--config", "Pulumi.s.yaml", "--yes", "--poll-interval", "50");
    expect(applied.code, applied.err).toBe(0);
    const { verdicts, report } = await probeVerdicts(dir, a, "Pulumi.s.yaml");
    expect(verdicts).toEqual(["not-applicable"]);
    expect(report.findings.find((f) => f.ruleId === "post-deploy-probes")!.message).toMatch(
      /they were taken at \S+, before the stack's last change \(audit entry 1 at \S+\)/,
    );
    expect((await run(dir, a, "probe", "--config", "Pulumi.s.yaml")).code).toBe(0);
    expect((await probeVerdicts(dir, a, "Pulumi.s.yaml")).verdicts).toEqual(["pass"]);
  });

  it("older than post-deploy-probes.maxAgeHours: stale", async () => {
    const dir = stackDir({
      "Pulumi.s.yaml": stack("  stackwarden:policies:\n    post-deploy-probes: { maxAgeHours: 1 }\n"),
    });
    expect((await run(dir, a, "probe", "--config", "Pulumi.s.yaml")).code).toBe(0);
    expect((await probeVerdicts(dir, a, "Pulumi.s.yaml")).verdicts).toEqual(["pass"]);
    // The same run, as it reads two hours later.
    const file = join(dir, ".stackwarden", "probes", "s.json");
    const kept = JSON.parse(readFileSync(file, "utf8")) as StoredProbeRun;
    const earlier = (iso: string) => new Date(Date.parse(iso) - 2 * 3_600_000).toISOString();
    writeFileSync(file, JSON.stringify({ ...kept, startedAt: earlier(kept.startedAt), finishedAt: earlier(kept.finishedAt) }));
    const { verdicts, report } = await probeVerdicts(dir, a, "Pulumi.s.yaml");
    expect(verdicts).toEqual(["not-applicable"]);
    expect(report.findings.find((f) => f.ruleId === "post-deploy-probes")!.message).toMatch(
      /more than 1 hour\(s\) ago \(post-deploy-probes\.maxAgeHours\)/,
    );
  });
});
