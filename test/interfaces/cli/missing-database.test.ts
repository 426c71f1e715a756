import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ESTATE } from "../../../src/emulator/default-estate";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import type { CommandIO } from "../../../src/interfaces/cli/command-io";
import { main } from "../../../src/interfaces/cli/main";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { stackDir } from "./cli-harness";

// One answer per failure kind: a database the cloud does not have is reported at its stack-file
// line by every command that reads it, the others are still judged, and each command's exit code
// says so as its --help and the README document.

const STACK = `config:
  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000
  stackwarden:databases:
    - { resourceGroup: rg-data, server: sql-prod-1, database: orders, transparentDataEncryption: Enabled }
    - { resourceGroup: rg-data, server: sql-prod-1, database: ghost, transparentDataEncryption: Enabled, serviceObjective: S1 }
    - { resourceGroup: rg-data, server: sql-prod-1, database: customers, transparentDataEncryption: Enabled }
  stackwarden:batch:
    resourceGroups: [rg-ml]
    locations: [eastus]
  stackwarden:residency:
    allowedCountries: [US, NL]
`;
/** The line every command gives for it, wherever it reads it. */
const GHOST =
  /stack\.yaml:5:7: database rg-data\/sql-prod-1\/ghost: the cloud has no such database \(ResourceNotFound: .*\); fix the stack entry, or create the database/;

let t: TestEmulator;
let dir: string;
beforeAll(async () => {
  t = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
  dir = stackDir({ "stack.yaml": STACK });
});
afterAll(() => t?.close());

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    isTTY: false,
    cwd: dir,
    exitCode: 0,
    env: { PATH: process.env.PATH, STACKWARDEN_EMULATOR: t.url },
  };
  const code = await main(argv, io);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** Exactly one stderr line about the ghost, the command's own prefix before it. */
function expectGhostReported(err: string, command: string): void {
  const lines = err.split("\n").filter((l) => l.includes("ghost"));
  expect(lines, err).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^${command.replace(/ /g, "\\s")}: `));
  expect(lines[0]).toMatch(GHOST);
}

describe("a database the cloud does not have", () => {
  it("plan: reported at its line, the others planned; exit 1", async () => {
    const r = await run("plan", "--config", "stack.yaml");
    expect(r.code).toBe(1);
    expectGhostReported(r.err, "stackwarden plan");
    expect(r.out).toMatch(/~ rg-data\/sql-prod-1\/orders\s+TDE Disabled -> Enabled/);
  });

  it("drift: reported at its line, the others compared; exit 1 (even with drift among them)", async () => {
    const r = await run("drift", "--config", "stack.yaml");
    expect(r.code).toBe(1);
    expectGhostReported(r.err, "stackwarden drift");
    expect(r.out).toMatch(/~ rg-data\/sql-prod-1\/orders {2}TDE live Disabled, desired Enabled/);
    expect(r.out).not.toContain("ghost");
    const json = JSON.parse((await run("drift", "--config", "stack.yaml", "--output", "json")).out) as {
      transparentDataEncryption: { label: string }[];
      errors: { id: string; line: number; status: number }[];
    };
    expect(json.transparentDataEncryption.map((d) => d.label)).toEqual(["rg-data/sql-prod-1/orders"]);
    expect(json.errors).toEqual([expect.objectContaining({ line: 5, status: 404, code: "ResourceNotFound" })]);
  });

  it("check: reported at its line; its findings not applicable with the reason, the others judged; exit 1", async () => {
    const r = await run("check", "--config", "stack.yaml", "--output", "json");
    expect(r.code).toBe(1);
    expectGhostReported(r.err, "stackwarden check");
    const report = JSON.parse(r.out) as { findings: { ruleId: string; label: string; verdict: string; message: string }[] };
    const of = (label: string) => report.findings.filter((f) => f.label.endsWith(label));
    expect(of("ghost").length).toBeGreaterThan(0);
    for (const f of of("ghost")) {
      expect(f.verdict, f.ruleId).toBe("not-applicable");
      expect(f.message).toMatch(/could not be read: the cloud has no such database/);
    }
    expect(of("/orders").find((f) => f.ruleId === "sql-tde-enabled")?.verdict).toBe("fail");
    expect(of("/customers").find((f) => f.ruleId === "sql-tde-enabled")?.verdict).toBe("pass");
    expect(report.findings.filter((f) => f.ruleId === "data-residency" && f.verdict === "pass").length).toBeGreaterThan(0);
  });

  it("check --planned: the same; the plan cannot change what is not there", async () => {
    const r = await run("check", "--config", "stack.yaml", "--planned", "--output", "json");
    expect(r.code).toBe(1);
    expectGhostReported(r.err, "stackwarden check");
    const report = JSON.parse(r.out) as { findings: { ruleId: string; label: string; verdict: string }[] };
    expect(report.findings.find((f) => f.ruleId === "sql-tde-enabled" && f.label.endsWith("ghost"))?.verdict).toBe("not-applicable");
  });

  it("where: reported at its line, not placed (the reason says why), the others placed; exit 1", async () => {
    const r = await run("where", "--config", "stack.yaml", "--output", "json");
    expect(r.code).toBe(1);
    expectGhostReported(r.err, "stackwarden where");
    const doc = JSON.parse(r.out) as { placements: { label: string; status: string; reason: string }[]; errors: unknown[] };
    const ghost = doc.placements.find((p) => p.label.endsWith("ghost"))!;
    expect(ghost).toMatchObject({ status: "not-applicable" });
    expect(ghost.reason).toMatch(/it could not be read: the cloud has no such database/);
    expect(doc.placements.find((p) => p.label.endsWith("/orders"))).toMatchObject({ status: "placed", country: "US" });
    expect(doc.errors).toHaveLength(1);
  });

  it("inventory: each of its failed reads under errors, at its line; everything else printed; exit 1", async () => {
    const r = await run("inventory", "--config", "stack.yaml", "--output", "json");
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out) as { sql: { transparentDataEncryptions: unknown[] }; errors: { location?: string; status: number }[] };
    expect(doc.sql.transparentDataEncryptions).toHaveLength(2);
    expect(doc.errors.length).toBeGreaterThan(0);
    for (const e of doc.errors) expect(e).toMatchObject({ location: "stack.yaml:5:7", status: 404 });
  });

  it("watch: every tick reports it at its line and fails, after reconciling the others (its readiness says why)", async () => {
    const r = await run("watch", "--config", "stack.yaml", "--max-ticks", "1");
    expect(r.code).toBe(0);
    const lines = r.out.split("\n");
    expect(
      lines.some((l) => /tick 1: stack\.yaml:5:7: database rg-data\/sql-prod-1\/ghost: the cloud has no such database/.test(l)),
      r.out,
    ).toBe(true);
    expect(
      lines.some((l) => /tick 1: FAILED: 1 database\(s\) of the stack could not be read \(rg-data\/sql-prod-1\/ghost\)/.test(l)),
      r.out,
    ).toBe(true);
    expect(r.out).toMatch(/tick 1: 1 drifted/);
  });

  it("apply: reported at its line, the others applied; exit 1", async () => {
    const r = await run("apply", "--config", "stack.yaml", "--yes", "--poll-interval", "50");
    expect(r.code).toBe(1);
    expectGhostReported(r.err, "stackwarden apply");
    expect(r.out).toMatch(/Apply: 1 of 1 change\(s\) converged\./);
  });
});
