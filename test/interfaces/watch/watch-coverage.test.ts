import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliProcess, startCli, type CliProcess } from "../../helpers/cli-process";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { escapeHtml } from "../../../src/interfaces/watch/page/html";
import { eventually } from "./watch-metrics";
import { expectValid } from "./status-schema";

// Issue 42 item 3 on the watcher: a stack with a scope shows check's counts in its API
// (`coverage` of /api/v1/stacks/NAME, valid against stack-status.schema.json) and one line in its
// page's header; a stack without a scope has `coverage: null` and no such line. Real CLI, real HTTP.

const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: orders, transparentDataEncryption: Enabled }     # listed
        - { name: billing, transparentDataEncryption: Disabled }   # no stack lists it: discovered, non-compliant
        - { name: ledger, transparentDataEncryption: Enabled }     # discovered, compliant
`;
const LISTED = `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg, server: s1, database: orders, transparentDataEncryption: Enabled }
`;
const SCOPED = `${LISTED}  stackwarden:scope:
    subscriptions: [${SUB}]
`;

let t: TestEmulator;
const dirs: string[] = [];
const running: CliProcess[] = [];

beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
});
afterAll(async () => {
  for (const p of running) p.child.kill("SIGKILL");
  await t?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const env = () => ({ PATH: process.env.PATH, STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata` });

/** A project with the stack file `dev`. */
function project(stack: string): string {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-watch-coverage-"));
  dirs.push(dir);
  mkdirSync(join(dir, "stacks"));
  writeFileSync(join(dir, "stacks", "Pulumi.dev.yaml"), stack);
  return dir;
}

/** Watches `dev` in `dir` and answers its status once the first sweep ended, with the page. */
async function firstSweep(dir: string): Promise<{ status: Record<string, unknown>; page: string }> {
  const w = startCli(["watch", "--stack", "dev", "--listen", "127.0.0.1:0", "--interval", "1h"], { cwd: dir, env: env() });
  running.push(w);
  const url = /listening on (http:\/\/\S+)/.exec(await w.line(/listening on http/))![1];
  const status = await eventually("the first sweep in /api/v1/stacks/dev", async () => {
    const s = (await (await fetch(`${url}/api/v1/stacks/dev`)).json()) as Record<string, unknown> & { lastTick: unknown };
    return s.lastTick ? s : undefined;
  });
  const page = await (await fetch(`${url}/stacks/dev`)).text();
  w.child.kill("SIGTERM");
  return { status, page };
}

describe("watch: the scope's coverage in the API and on the page", () => {
  it("a stack with a scope: check's counts, schema-valid, and check's sentence in the page's header", async () => {
    const dir = project(SCOPED);
    const check = await runCliProcess(["check", "--stack", "dev", "--output", "json"], { cwd: dir, env: env(), timeoutMs: 60_000 });
    expect(check.code, check.output).toBe(3);
    const fromCheck = JSON.parse(check.stdout) as { coverage: Record<string, unknown>; notes: string[] };
    expect(fromCheck.coverage).toMatchObject({ inScope: 3, listed: 1, discovered: 2, discoveredNonCompliant: ["rg/s1/billing"] });

    const { status, page } = await firstSweep(dir);
    expectValid("StackStatus", status);
    const { checkedAt, ...counts } = status.coverage as Record<string, unknown>;
    expect(counts).toEqual(fromCheck.coverage);
    expect(checkedAt).toEqual(expect.any(String));
    expect(page).toContain(`<p class="coverage">${escapeHtml(fromCheck.notes[0])}</p>`);
  });

  it("a stack without a scope: coverage null, no line", async () => {
    const { status, page } = await firstSweep(project(LISTED));
    expectValid("StackStatus", status);
    expect(status.coverage).toBeNull();
    expect(page).not.toContain(`class="coverage"`);
  });
});
