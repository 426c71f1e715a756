import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/platform/version";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { runCliWith } from "../interfaces/cli/cli-harness";
import { job, logOf, step, WorkflowRepo } from "./workflow-fixture";

/**
 * A repository of the user's own, started with `stackwarden init` and holding nothing else: its
 * pull-request workflow calls stackwarden's by reference, whose jobs set stackwarden up with the
 * action by reference (from a copy of stackwarden's repository, as GitHub downloads it). A pull
 * request that disables TDE fails the gate on `check --planned` and the one comment names it.
 */
const PR = 12;

let emu: TestEmulator;
let repo: WorkflowRepo;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: seedFromYaml(readFileSync(join(PROJECT_ROOT, "stacks", "dev.estate.yaml"), "utf8")) });
  repo = new WorkflowRepo(emu, { files: {} });
  const init = await runCliWith(["init"], { cwd: repo.author });
  expect(init.code, init.err).toBe(0);
  repo.commit({}, "stackwarden init");
  repo.git("push", "-q", "origin", "main");
  repo.api.addPullRequest(PR, "Stop encrypting inventory");
});

afterAll(async () => {
  await emu?.close();
  repo?.cleanup();
});

describe("the workflows used by reference from a repository that holds only stack files", () => {
  it("the repository holds init's files and no stackwarden source", () => {
    expect(repo.git("ls-files").split("\n").sort()).toEqual([
      ".github/workflows/stackwarden-drift.yml",
      ".github/workflows/stackwarden-merge.yml",
      ".github/workflows/stackwarden-pull-request.yml",
      ".gitignore",
      "stacks/Pulumi.dev.yaml",
    ]);
  });

  it("a pull request that disables TDE: the called gate runs check --planned (exit 3) and posts the comment that names the database", async () => {
    repo.git("checkout", "-q", "-b", "inventory-off");
    const stack = readFileSync(join(repo.author, "stacks", "Pulumi.dev.yaml"), "utf8");
    const off = stack.replace(/(database: inventory\n\s+transparentDataEncryption:) Enabled/, "$1 Disabled");
    expect(off).not.toBe(stack);
    const sha = repo.commit({ "stacks/Pulumi.dev.yaml": off }, "dev: inventory unencrypted");

    const { run, sarif } = await repo.pullRequest(sha, PR, "inventory-off", "stackwarden-pull-request.yml");
    expect(run.result, logOf(run)).toBe("failure");
    expect(JSON.parse(run.needs.stacks.outputs.matrix)).toMatchObject({
      include: [{ stack: "dev", engine: "native", file: "stacks/Pulumi.dev.yaml" }],
    });
    const gate = job(run, "gate", "dev");
    // The action ran from stackwarden's repository, not the caller's workspace.
    expect(step(gate, "OWNER/stackwarden/.github/actions/setup-stackwarden@v0.1.0").log).toContain(
      `linked the installed project (node_modules, dist) into ${repo.stackwarden}`,
    );
    expect(step(gate, "Compliance check of the planned state").outputs.exit).toBe("3");
    expect(sarif.map((s) => s.category)).toEqual(["stackwarden-dev"]);
    expect(gate.summary).toContain(
      "rg-data/sql-prod-2/inventory must have transparent data encryption Enabled; the stack sets it to Disabled",
    );

    expect(job(run, "comment").result).toBe("success");
    const comments = repo.api.comments.filter((c) => c.issue_number === PR && c.user.type === "Bot");
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toMatch(/^<!-- stackwarden:pull-request -->/);
    expect(comments[0].body).toContain("**Failing:** `dev`");
    expect(comments[0].body).toContain("the stack sets it to Disabled");
  }, 180_000);
});
