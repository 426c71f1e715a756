import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/platform/http";
import { SqlClient } from "../../src/services/sql/client";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { STAND_INS } from "./hosted-action-stand-ins";
import { job, logOf, step, WorkflowRepo } from "./workflow-fixture";

/**
 * The workflows' own steps, run in order by a local runner (workflow-runner.ts) in fresh clones of
 * a temporary git repository, against the emulator: a pull request that introduces a mandatory
 * violation, the commit that fixes it, the merge, and scheduled drift runs. The CLI runs compiled
 * (dist/, built by `npm test`'s pretest). Hosted actions are stood in for (STAND_INS, printed once).
 */
const SUB = "00000000-0000-0000-0000-0000000000f1";
const PR = 7;

const SEED = `
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 150
  servers:
    - name: sql-wf
      resourceGroup: rg-wf
      databases:
        - { name: orders, transparentDataEncryption: Enabled }
        - { name: invoices, transparentDataEncryption: Disabled }
        - { name: metrics, transparentDataEncryption: Enabled }
`;

const db = (name: string, tde: "Enabled" | "Disabled") =>
  [`    - resourceGroup: rg-wf`, `      server: sql-wf`, `      database: ${name}`, `      transparentDataEncryption: ${tde}`].join("\n");
const stackFile = (...dbs: string[]) =>
  ["config:", `  stackwarden:subscriptionId: ${SUB}`, "  stackwarden:databases:", ...dbs, ""].join("\n");

let emu: TestEmulator;
let repo: WorkflowRepo;
let prHead: string;

const botComments = () => repo.api.comments.filter((c) => c.issue_number === PR && c.user.type === "Bot");

beforeAll(async () => {
  emu = await startTestEmulator({ seed: seedFromYaml(SEED) });
  repo = new WorkflowRepo(emu, {
    files: {
      "stacks/Pulumi.prod.yaml": stackFile(db("orders", "Enabled")),
      "stacks/Pulumi.staging.yaml": stackFile(db("metrics", "Enabled")),
    },
  });
  repo.api.addPullRequest(PR, "Encrypt invoices");
  repo.api.addHumanComment(PR, "Quoting the bot: <!-- stackwarden:pull-request --> looks odd");
  console.log(
    `workflow test stand-ins for hosted actions:\n${Object.entries(STAND_INS)
      .map(([k, v]) => `  ${k}: ${v}`)
      .join("\n")}`,
  );
});

afterAll(async () => {
  await emu?.close();
  repo?.cleanup();
});

describe("the workflows' run: steps against the emulator", () => {
  it("a pull request that disables TDE on a database fails its stack's gate with a SARIF file, a summary and a comment that name the violation", async () => {
    repo.git("checkout", "-q", "-b", "encrypt-invoices");
    const sha = repo.commit(
      { "stacks/Pulumi.prod.yaml": stackFile(db("orders", "Disabled"), db("invoices", "Enabled")) },
      "prod: invoices, and orders off",
    );
    const { run, sarif, azTokens } = await repo.pullRequest(sha, PR, "encrypt-invoices");

    expect(run.result, logOf(run)).toBe("failure");
    // Only the stack the pull request changed is planned and checked.
    expect(run.needs.stacks.outputs.count).toBe("1");
    expect(JSON.parse(run.needs.stacks.outputs.matrix)).toMatchObject({
      include: [{ stack: "prod", engine: "native", file: "stacks/Pulumi.prod.yaml" }],
    });
    const gate = job(run, "gate", "prod");
    expect(gate.name).toBe("plan and check prod");
    expect(gate.maxParallel).toBeGreaterThan(0);
    expect(gate.result).toBe("failure");
    expect(step(gate, "Plan").outputs.exit).toBe("2"); // orders: disable, invoices: enable
    expect(step(gate, "Compliance check of the planned state").outputs.exit).toBe("3");
    expect(step(gate, "Verdict").outcome).toBe("failure");
    expect(run.errors.join("\n")).toMatch(/::error title=stack prod: check::check mandatory violation \(exit 3\)/);

    // SARIF: uploaded (schema-valid, the stand-in checks it) with the stack's category, naming the rule and the database.
    expect(sarif).toHaveLength(1);
    expect(sarif[0].category).toBe("stackwarden-prod");
    const failing = sarif[0].sarif.runs[0].results.filter((r) => r.level === "error");
    expect(failing.map((r) => r.ruleId)).toEqual(["sql-tde-enabled"]);
    expect(failing[0].message.text).toContain(
      "rg-wf/sql-wf/orders must have transparent data encryption Enabled; the stack sets it to Disabled",
    );

    // The job summary names it; the one comment carries the same summary.
    expect(gate.summary).toMatch(/### :x: stack `prod`/);
    expect(gate.summary).toContain("sql-tde-enabled");
    expect(gate.summary).toContain("the stack sets it to Disabled");
    expect(gate.summary).toMatch(/`rg-wf\/sql-wf\/invoices` \| Disabled \| Enabled \| enable/);
    expect(job(run, "comment").result).toBe("success");
    const comments = botComments();
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toMatch(/^<!-- stackwarden:pull-request -->/);
    expect(comments[0].body).toContain("**Failing:** `prod`");
    expect(comments[0].body).toContain("the stack sets it to Disabled");
    // The ARM token came from the Azure CLI azure/login signed in, asked by stackwarden's credential
    // chain itself: no step copied a token into the job's environment, and it is in no report or log.
    expect(run.masks).toEqual([]);
    expect(azTokens.length).toBeGreaterThan(0);
    for (const token of azTokens)
      for (const text of [gate.summary, comments[0].body, JSON.stringify(sarif), logOf(run)]) expect(text).not.toContain(token);
  }, 120_000);

  it("the fix turns the gate green and updates the same comment in place", async () => {
    prHead = repo.commit(
      { "stacks/Pulumi.prod.yaml": stackFile(db("orders", "Enabled"), db("invoices", "Enabled")) },
      "prod: keep orders encrypted",
    );
    const before = botComments()[0].id;
    const { run, sarif } = await repo.pullRequest(prHead, PR, "encrypt-invoices");

    expect(run.result, logOf(run)).toBe("success");
    const gate = job(run, "gate", "prod");
    expect(step(gate, "Plan").outputs.exit).toBe("2"); // invoices will be encrypted on merge
    expect(step(gate, "Compliance check of the planned state").outputs.exit).toBe("0");
    expect(gate.summary).toMatch(/### :white_check_mark: stack `prod`/);
    expect(sarif[0].sarif.runs[0].results.filter((r) => r.level === "error")).toEqual([]);
    const comments = botComments();
    expect(comments.map((c) => c.id)).toEqual([before]);
    expect(comments[0].body).toContain("All stacks pass.");
    expect(comments[0].body).not.toContain("the stack sets it to Disabled");
    expect(repo.api.comments.find((c) => c.user.type === "User")?.body).toContain("Quoting the bot");
  }, 120_000);

  it("the merge applies the changed stack in its stack-<name> concurrency group and checks the live state", async () => {
    repo.git("checkout", "-q", "main");
    repo.git("merge", "-q", "--ff-only", "encrypt-invoices");
    repo.git("push", "-q", "origin", "main");
    const { run, sarif } = await repo.run("merge.yml", {
      name: "push",
      payload: { before: repo.base, after: prHead, ref: "refs/heads/main" },
      ref: "refs/heads/main",
      sha: prHead,
    });

    expect(run.result, logOf(run)).toBe("success");
    expect(JSON.parse(run.needs.stacks.outputs.matrix).include.map((s: { stack: string }) => s.stack)).toEqual(["prod"]);
    const apply = job(run, "apply", "prod");
    expect(apply.concurrency).toEqual({ group: "stack-prod", cancelInProgress: false });
    expect(step(apply, "Apply").outputs.exit).toBe("0");
    expect(step(apply, "Apply").log).toMatch(/Apply: 1 of 1 change\(s\) converged/);
    expect(step(apply, "Compliance check of the live state").outputs.exit).toBe("0");
    expect(step(apply, "Keep the audit trail").outcome).toBe("success"); // absent trail tolerated
    expect(apply.summary).toMatch(/stack `prod`[\s\S]*apply \| converged \(exit 0\)/);
    expect(sarif.map((s) => s.category)).toEqual(["stackwarden-prod"]);

    const sql = new SqlClient({ endpoint: emu.url, credential: emu.credential, retry: FAST_RETRY, logger: silentLogger });
    const invoices = await sql.getTransparentDataEncryption({
      subscriptionId: SUB,
      resourceGroup: "rg-wf",
      server: "sql-wf",
      database: "invoices",
    });
    expect(invoices.properties?.status).toBe("Enabled");
  }, 120_000);

  it("a drift run covers every stack, fails on drift and opens one issue per drifted stack; the next run updates that issue", async () => {
    const sql = new SqlClient({ endpoint: emu.url, credential: emu.credential, retry: FAST_RETRY, logger: silentLogger });
    const orders = { subscriptionId: SUB, resourceGroup: "rg-wf", server: "sql-wf", database: "orders" };
    await sql.putTransparentDataEncryption(orders, "Disabled"); // out of band
    const drift = () =>
      repo.run("drift.yml", { name: "schedule", payload: { schedule: "23 */6 * * *" }, ref: "refs/heads/main", sha: prHead });

    const first = await drift();
    expect(first.run.result, logOf(first.run)).toBe("failure");
    expect(first.run.jobs.filter((j) => j.job === "drift").map((j) => j.matrix.stack)).toEqual(["prod", "staging"]);
    const prod = job(first.run, "drift", "prod");
    expect(prod.result).toBe("failure");
    expect(step(prod, "Drift").outputs.exit).toBe("2");
    expect(prod.summary).toContain("`rg-wf/sql-wf/orders`: TDE is Disabled, the stack wants Enabled");
    expect(job(first.run, "drift", "staging").result).toBe("success");
    const open = () => repo.api.issues.filter((i) => !i.pull_request && i.state === "open");
    expect(open()).toHaveLength(1);
    expect(open()[0]).toMatchObject({ title: "stackwarden drift: stack prod", labels: [{ name: "stackwarden-drift" }] });
    expect(open()[0].body).toContain("orders");

    const secondId = repo.nextRunId;
    const second = await drift();
    expect(second.run.result).toBe("failure");
    expect(open()).toHaveLength(1);
    expect(repo.api.calls.filter((c) => c === "issues.create")).toHaveLength(1);
    expect(open()[0].body).toContain(`[run ${secondId}]`);
  }, 120_000);
});
