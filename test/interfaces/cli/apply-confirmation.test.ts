import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/interfaces/cli/main";
import type { CommandIO } from "../../../src/interfaces/cli/command-io";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { G } from "../../domain/stack/bad-stacks";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli, stackDir } from "./cli-harness";

// `apply` without --yes where no one can answer (stdin is not a terminal) refuses, as `pulumi up`
// and `terraform apply` do: exit 1, the message names --yes, and nothing is read, written, locked
// or audited. Where someone can answer, it asks.

const SEED = `
sql:
  scanDurationMs: 50
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: a, transparentDataEncryption: Disabled }
        - { name: b, transparentDataEncryption: Disabled }
        - { name: c, transparentDataEncryption: Disabled }
        - { name: w, transparentDataEncryption: Disabled }
`;
const stack = (db: string) =>
  `config:\n  stackwarden:subscriptionId: ${G}\n  stackwarden:databases:\n    - { resourceGroup: rg, server: s1, database: ${db}, transparentDataEncryption: Enabled }\n`;

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
});
afterAll(() => t.close());

/** Requests the emulator has answered so far, admin routes aside. */
const served = () =>
  Object.entries(t.emu.stats.byRoute)
    .filter(([k]) => !k.includes("/_emulator/"))
    .reduce((n, [, v]) => n + v, 0);

async function tde(db: string): Promise<string> {
  const token = (await t.credential.getToken("https://management.azure.com/.default")).token;
  const res = await fetch(
    `${t.url}/subscriptions/${G}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/${db}/transparentDataEncryption/current?api-version=2014-04-01`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  return ((await res.json()) as { properties: { status: string } }).properties.status;
}

function expectRefused(r: { code: number; out: string; err: string }, dir: string): void {
  expect(r.code).toBe(1);
  expect(r.out).toBe("");
  expect(r.err.split("\n")).toHaveLength(1);
  expect(r.err).toMatch(/refusing to (apply|run pulumi up on) stack \S+ without --yes: stdin is not a terminal/);
  // No lock taken, no audit entry: the refusal leaves no trace.
  expect(existsSync(join(dir, ".stackwarden"))).toBe(false);
}

describe("apply without --yes and without a terminal", () => {
  it("native engine: refuses before reading anything", async () => {
    const dir = stackDir({ "Pulumi.one.yaml": stack("a") });
    const before = served();
    const r = await runCli(["apply", "--config", "Pulumi.one.yaml"], t.url, dir);
    expectRefused(r, dir);
    expect(served()).toBe(before);
    expect(await tde("a")).toBe("Disabled");
  });

  it("pulumi engine: refuses before the engine starts (no Pulumi CLI needed to say so)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sw-confirm-"));
    const before = served();
    const project = await runCliIn(PROJECT_ROOT, ["apply", "--engine", "pulumi", "--stack", "dev"], {
      STACKWARDEN_EMULATOR: t.url,
      STACKWARDEN_AUDIT_DIR: join(dir, ".stackwarden", "audit"),
      STACKWARDEN_LOCK_DIR: join(dir, ".stackwarden", "locks"),
    });
    expectRefused(project, dir);
    expect(served()).toBe(before);
  });

  it("a real process with stdin from /dev/null refuses the same way", async () => {
    const dir = stackDir({ "Pulumi.two.yaml": stack("b") });
    const r = await new Promise<{ code: number; out: string; err: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [join(PROJECT_ROOT, "bin", "stackwarden.js"), "apply", "--config", "Pulumi.two.yaml"],
        { cwd: dir, env: { PATH: process.env.PATH, STACKWARDEN_EMULATOR: t.url }, encoding: "utf8" },
        (_e, out, err) => resolve({ code: child.exitCode ?? -1, out, err: err.trim() }),
      );
      child.stdin?.end();
    });
    expectRefused(r, dir);
    expect(await tde("b")).toBe("Disabled");
  });
});

describe("apply without --yes where someone can answer", () => {
  it("asks; no cancels with nothing changed, yes applies", async () => {
    const dir = stackDir({ "Pulumi.three.yaml": stack("c") });
    const asked: string[] = [];
    const no = await runCliIn(dir, ["apply", "--config", "Pulumi.three.yaml"], { STACKWARDEN_EMULATOR: t.url }, (q) => {
      asked.push(q);
      return "n";
    });
    expect(no.code).toBe(1);
    expect(no.err).toContain("apply cancelled; nothing was changed");
    expect(asked).toEqual(["Apply 1 change(s) to stack three? [y/N] "]);
    expect(await tde("c")).toBe("Disabled");
    const yes = await runCliIn(
      dir,
      ["apply", "--config", "Pulumi.three.yaml", "--poll-interval", "50"],
      { STACKWARDEN_EMULATOR: t.url },
      () => "y",
    );
    expect(yes.code, yes.err).toBe(0);
    expect(await tde("c")).toBe("Enabled");
  });
});

describe("watch applies only with its flag", () => {
  it("watch --git without --auto-apply plans a new commit and changes nothing", async () => {
    const root = mkdtempSync(join(tmpdir(), "sw-confirm-git-"));
    const git = (cwd: string, ...args: string[]) =>
      execFileSync("git", args, {
        cwd,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: "t",
          GIT_AUTHOR_EMAIL: "t@example.com",
          GIT_COMMITTER_NAME: "t",
          GIT_COMMITTER_EMAIL: "t@example.com",
        },
      });
    git(root, "init", "--quiet", "--bare", "--initial-branch=main", "remote.git");
    git(root, "clone", "--quiet", join(root, "remote.git"), "checkout");
    const checkout = join(root, "checkout");
    execFileSync("mkdir", ["-p", join(checkout, "stacks")]);
    writeFileSync(join(checkout, "stacks", "Pulumi.gitops.yaml"), stack("w"));
    git(checkout, "add", ".");
    git(checkout, "commit", "--quiet", "-m", "encrypt w");
    git(checkout, "push", "--quiet", "origin", "HEAD:main");
    const r = await runCliIn(root, ["watch", "--git", checkout, "--stack", "gitops", "--max-ticks", "1"], { STACKWARDEN_EMULATOR: t.url });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/new commit: plan has 1 change\(s\) \(apply them with --auto-apply or stackwarden apply\)/);
    expect(r.out).not.toContain("applying");
    expect(await tde("w")).toBe("Disabled");
    expect(existsSync(join(root, ".stackwarden", "audit"))).toBe(false);
  });
});

/** The CLI in-process in `cwd` with exactly `env` (PATH aside) and, when given, someone answering its questions. */
async function runCliIn(
  cwd: string,
  argv: string[],
  env: Record<string, string>,
  answer?: (question: string) => string,
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    ...(answer ? { ask: async (q: string) => answer(q) } : {}),
    isTTY: false,
    cwd,
    exitCode: 0,
    env: { PATH: process.env.PATH, ...env },
  };
  const code = await main(argv, io);
  return { code, out: out.join("\n"), err: err.join("\n") };
}
