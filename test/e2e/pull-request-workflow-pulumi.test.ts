import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { e2eCli, e2eRequired } from "../helpers/pulumi-cli";
import { job, logOf, step, WorkflowRepo } from "../pipelines/workflow-fixture";

/**
 * pull-request.yml for a stack with `stackwarden:engine: pulumi`: its own steps run the real
 * Pulumi CLI (`pulumi stack select --create`, `pulumi preview --policy-pack policies`) against the
 * emulator, in a fresh clone whose program, providers and policy pack link to this checkout. A pull
 * request that disables TDE is stopped by the pack's mandatory rule, and its summary says so; the
 * fix passes.
 */
const cli = e2eCli();
const SUB = "00000000-0000-0000-0000-0000000000e5";
const SEED = `
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 150
  servers:
    - name: sql-pp
      resourceGroup: rg-pp
      databases:
        - { name: ledger, transparentDataEncryption: Enabled }
`;
const stackFile = (tde: string, objective = "") =>
  [
    "config:",
    `  stackwarden:subscriptionId: ${SUB}`,
    "  stackwarden:engine: pulumi",
    "  stackwarden:databases:",
    `    - { resourceGroup: rg-pp, server: sql-pp, database: ledger, transparentDataEncryption: ${tde}${objective ? `, serviceObjective: ${objective}` : ""} }`,
    "",
  ].join("\n");

if (!cli && e2eRequired()) {
  it("has a Pulumi CLI (STACKWARDEN_E2E=required)", () => {
    expect.fail("STACKWARDEN_E2E=required but no Pulumi CLI was found: run `npm run pulumi:install`");
  });
}

describe.skipIf(!cli)("pull-request.yml with the Pulumi engine", () => {
  let emu: TestEmulator;
  let repo: WorkflowRepo;

  beforeAll(async () => {
    emu = await startTestEmulator({ seed: seedFromYaml(SEED) });
    const state = mkdtempSync(join(tmpdir(), "stackwarden-pp-state-"));
    for (const d of ["home", "backend"]) mkdirSync(join(state, d)); // a file:// backend's folder must exist
    repo = new WorkflowRepo(emu, {
      files: { "stacks/Pulumi.ledger.yaml": stackFile("Enabled") },
      // The Pulumi project: the program and its providers, as a copy of the project has them (the
      // policy pack comes from the setup action: STACKWARDEN_POLICY_PACK).
      projectFiles: ["Pulumi.yaml", "package.json"],
      links: ["node_modules", "dist", "src", "providers", "tsconfig.json", "stacks/index.ts", "stacks/index.js", "stacks/program.ts"],
      env: {
        PULUMI_HOME: join(state, "home"),
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        NO_COLOR: "1",
      },
      vars: { PULUMI_BACKEND_URL: `file://${join(state, "backend")}` },
      secrets: { PULUMI_CONFIG_PASSPHRASE: "stackwarden-e2e" },
    });
    repo.api.addPullRequest(9, "Turn ledger encryption off");
  });

  afterAll(async () => {
    await emu?.close();
    repo?.cleanup();
  });

  it("a pull request that disables TDE fails on the policy pack's preview as well as on check --planned", async () => {
    repo.git("checkout", "-q", "-b", "ledger-off");
    const sha = repo.commit({ "stacks/Pulumi.ledger.yaml": stackFile("Disabled") }, "ledger: TDE off");
    const { run } = await repo.pullRequest(sha, 9, "ledger-off");

    expect(run.result, logOf(run)).toBe("failure");
    const gate = job(run, "gate", "ledger");
    expect(step(gate, "Pulumi CLI").outcome).toBe("success");
    const preview = step(gate, "Pulumi preview with the policy pack");
    expect(preview.outputs.exit, preview.log).not.toBe("0");
    expect(preview.log).toMatch(/mandatory/);
    expect(preview.log).toMatch(/sql-tde-enabled/);
    expect(step(gate, "Compliance check of the planned state").outputs.exit).toBe("3");
    expect(gate.summary).toMatch(/\| preview \| \*\*failed \(exit \d+\)\*\* \|/);
    expect(gate.summary).toContain("pulumi preview --policy-pack policies");
    expect(run.errors.join("\n")).toMatch(/::error title=stack ledger: preview::preview failed/);
  }, 300_000);

  it("the fix passes the preview and the gate", async () => {
    // Still a change against main (the intended tier), so the stack is in the matrix.
    const sha = repo.commit({ "stacks/Pulumi.ledger.yaml": stackFile("Enabled", "S1") }, "ledger: TDE on again, tier S1");
    const { run } = await repo.pullRequest(sha, 9, "ledger-off");
    expect(run.result, logOf(run)).toBe("success");
    const gate = job(run, "gate", "ledger");
    expect(step(gate, "Pulumi preview with the policy pack").outputs.exit).toBe("0");
    expect(gate.summary).toContain("| preview | preview and policy pack passed (exit 0) |");
  }, 300_000);
});
