import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedFile } from "../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../src/emulator/services";
import { PROJECT_ROOT } from "../../src/platform/version";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { e2eCli, e2eRequired } from "../helpers/pulumi-cli";
import {
  docPage,
  exportsOf,
  freshClone,
  isBackground,
  portsOf,
  promisedExit,
  documents,
  removeInBackground,
  shBlockAfter,
  shellBlocks,
  TypingShell,
  waitForFreePorts,
  type ShellBlock,
} from "../helpers/readme-blocks";

// Every fenced shell block of the README and of each docs/ page says how it is tested, on the line above its fence:
// `<!-- runnable -->`, `<!-- runnable with an emulator -->` or `<!-- not run: REASON -->`. The runnable
// ones run here as a newcomer types them, in ONE fresh clone of the committed HEAD: the quick start
// first (its `npm ci` is the only one), then each block in order (the README, then docs/ by name) in a shell of its own, every
// line exiting as its comment says (`# exit N`, 0 when it says nothing). Blocks "with an emulator"
// get STACKWARDEN_EMULATOR naming one in-process emulator of the clone's dev estate, shared in README
// order. The quick start's `npm ci && npm test` is the suite this test is part of: it is checked to be
// exactly what .ci/run runs rather than run again. The blocks are read from the README now, never copied.

const execFileP = promisify(execFile);
const blocks = documents().flatMap((d) => shellBlocks(d.text, d.file));
const marked = blocks.filter((b) => b.marker.kind === "runnable" || b.marker.kind === "runnable with an emulator");
/** The quick start's block (`npm ci && npm start`) runs first wherever it sits: its `npm ci` is the clone's only one. */
const quickStart = marked.find((b) => b.file === "README.md" && b.commands.some((l) => l.startsWith("npm ci && npm start")));
const runnable = quickStart ? [quickStart, ...marked.filter((b) => b !== quickStart)] : marked;
const where = (b: ShellBlock) => `${b.file} line ${b.line} (${b.heading})`;

/** A shell's environment as a newcomer has it: none of the variables that would change what the commands do. */
function newcomerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(STACKWARDEN_|AZURE_|PULUMI_|npm_|VITEST|NODE_OPTIONS)/i.test(k)) env[k] = v;
  // The suite's one exception (vitest.config.mts): scans neither read nor fill the user's ~/.cache/stackwarden/scans.
  env.STACKWARDEN_SCAN_CACHE = "off";
  return env;
}

describe("every shell block of the README and docs/ says how it is tested", () => {
  it("is marked runnable, or not run with a reason; a test file a reason names exists", () => {
    expect(blocks.length).toBeGreaterThan(5);
    const unmarked = blocks.filter((b) => b.marker.kind === "unmarked");
    expect(
      unmarked.map((b) => `${where(b)}: the line above its fence is "${b.marker.kind === "unmarked" ? b.marker.above : ""}"`),
      "put <!-- runnable -->, <!-- runnable with an emulator --> or <!-- not run: what it needs --> on the line above each ```sh fence",
    ).toEqual([]);
    for (const b of blocks) {
      if (b.marker.kind !== "not run") continue;
      for (const file of b.marker.reason.match(/\btest\/[\w/.-]+\.ts\b/g) ?? [])
        expect(existsSync(join(PROJECT_ROOT, file)), `${where(b)}: ${file}`).toBe(true);
    }
  });

  it("runs the quick start first, the emulator's block and scan among the rest", () => {
    expect(quickStart, "README: a runnable block with `npm ci && npm start`").toBeDefined();
    expect(runnable[0].heading).toBe("## Quick start");
    expect(
      blocks.some((b) => b.file !== "README.md"),
      "docs/ pages' blocks are covered",
    ).toBe(true);
    expect(runnable.some((b) => b.heading === "### Point the CLI at the emulator")).toBe(true);
    expect(runnable.some((b) => b.commands.some((l) => l.startsWith("npx stackwarden scan ")))).toBe(true);
    expect(runnable.some((b) => b.commands.some((l) => l.startsWith("npx stackwarden rules generate ")))).toBe(true);
  });
});

describe("the runnable blocks, as written, in one fresh clone", () => {
  let clone = "";
  const env = newcomerEnv();
  let emulator: TestEmulator | undefined;
  let installed = false;
  const took: string[] = [];

  /** The commit the clone was made at (the checkout may move on while the file runs). */
  let clonedAt = "";

  beforeAll(() => {
    clone = freshClone();
    clonedAt = execFileSync("git", ["rev-parse", "HEAD"], { cwd: clone, encoding: "utf8" }).trim();
  });

  afterAll(async () => {
    await emulator?.close();
    if (!clone) return;
    // npx's own install of the clone (~/.npm/_npx/<hash of its path>: a link to the clone) goes with it.
    const npxCache = join((await execFileP("npm", ["config", "get", "cache"], { cwd: clone, env })).stdout.trim(), "_npx");
    const paths = new Set([clone, realpathSync(clone)]);
    for (const entry of existsSync(npxCache) ? readdirSync(npxCache) : []) {
      const pkg = join(npxCache, entry, "package.json");
      const packages = existsSync(pkg)
        ? ((JSON.parse(readFileSync(pkg, "utf8")) as { _npx?: { packages?: string[] } })._npx?.packages ?? [])
        : [];
      if (packages.some((p) => paths.has(p))) rmSync(join(npxCache, entry), { recursive: true, force: true });
    }
    // Removing the clone (npm ci's ~87 000 files) took minutes on a busy shared disk: it goes on after the file ends.
    removeInBackground(dirname(clone));
    console.log(`README and docs/ blocks: ${took.join("; ")}`);
  }, 120_000);

  /** Types a block's lines in a shell of its own; background jobs it starts must be stopped by its last line. */
  async function runBlock(block: ShellBlock, skip: (line: string) => boolean = () => false): Promise<void> {
    const started = Date.now();
    const blockEnv = { ...env };
    if (block.marker.kind === "runnable with an emulator") {
      emulator ??= await startTestEmulator({ seed: loadSeedFile(join(clone, "stacks", "dev.estate.yaml"), LOCAL_SERVICES) });
      blockEnv.STACKWARDEN_EMULATOR = emulator.url;
    }
    await waitForFreePorts(portsOf(block.commands), 240_000);
    const shell = new TypingShell(clone, blockEnv);
    const served = new Set<string>();
    const printed = new Map<string, string>();
    try {
      for (const [i, line] of block.commands.entries()) {
        if (skip(line)) continue;
        const exportedLater = block.commands.slice(i + 1).flatMap((l) => [...exportsOf(l).keys()]);
        const r = await shell.type(line, 600_000, isBackground(line) ? { printsExports: exportedLater } : {});
        expect(r.code, `${where(block)}: ${line}\n${r.output.slice(-3000)}`).toBe(promisedExit(line));
        if (isBackground(line)) {
          for (const [, origin] of r.output.matchAll(/(https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):\d+)/g)) served.add(origin);
          for (const [, name, value] of r.output.matchAll(/^export ([A-Z_][A-Z0-9_]*)=(\S+)$/gm)) printed.set(name, value);
        }
        // "the values it printed": an export of a value a background job printed must be that value.
        for (const [name, value] of exportsOf(line))
          if (printed.has(name)) expect(value, `${where(block)}: ${name}`).toBe(printed.get(name));
      }
      if (served.size > 0) {
        const last = block.commands[block.commands.length - 1];
        expect(last, `${where(block)} starts background jobs: its last line must stop them`).toMatch(/^kill /);
        await expectStopped([...served], where(block));
      }
    } finally {
      await shell.close();
      took.push(`${block.file}:${block.line} ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  }

  it("the quick start: npm ci && npm start exit 0, and its test line is what .ci/run runs", async () => {
    const quick = runnable[0];
    expect(quick.commands.some((l) => l.startsWith("npm ci && npm start"))).toBe(true);
    const testLine = quick.commands.find((l) => l.startsWith("npm ci && npm test"));
    expect(testLine, "the quick start's test line").toBeDefined();
    const ciRun = readFileSync(join(PROJECT_ROOT, ".ci", "run"), "utf8").split("\n");
    expect(ciRun).toContain(testLine!.replace(/\s+#.*$/, ""));
    await runBlock(quick, (line) => line === testLine);
    installed = true;
  }, 1_200_000);

  // What made the first call slow (28-35 s) was npm exec's install of the clone running `prepare`,
  // the whole build: that it rebuilds nothing is asserted here. Its time is reported with the other
  // figures (1.2-2.6 s measured at load 8) but not asserted: speed is the benches' business, and a
  // loaded machine must not fail the suite.
  it("npx stackwarden answers at once after npm ci: the first call rebuilds nothing", async () => {
    expect(installed, "the quick start's npm ci").toBe(true);
    const built = join(clone, "dist", "src", "emulator", "seed-validator.generated.js");
    const builtAt = statSync(built).mtimeMs;
    const t0 = performance.now();
    const r = await execFileP("npx", ["--no-install", "stackwarden", "--version"], { cwd: clone, env });
    const seconds = (performance.now() - t0) / 1000;
    took.push(`first npx --version ${seconds.toFixed(2)} s`);
    expect(r.stdout.trim()).toBe((JSON.parse(readFileSync(join(clone, "package.json"), "utf8")) as { version: string }).version);
    expect(statSync(built).mtimeMs, "npx rebuilt the project").toBe(builtAt);
  }, 60_000);

  // docs/pulumi.md's "Pulumi by hand", run as written with the real Pulumi CLI in this fresh clone, right after
  // the quick start (before any other block touches the clone): its first line, `npm ci`, is the quick start's,
  // which ran in this clone of the same commit (asserted, not run again: a second install of ~87 000 files proves
  // nothing the first did not). Then the CLI from the pulumi:install cache, a file backend under a fresh $HOME,
  // stack init with the committed stack file, preview and up against the emulator, the converged stack's
  // `preview --refresh --expect-no-changes` and `refresh --preview-only --expect-no-changes` (exit 0), no warning
  // about index.js, and the committed stack files unchanged. The block is marked `not run` (it needs the CLI),
  // so the loop below does not run it again.
  const pulumiCli = e2eCli();
  if (!pulumiCli && e2eRequired()) {
    it("has a Pulumi CLI for docs/pulumi.md's Pulumi by hand (STACKWARDEN_E2E=required)", () => {
      expect.fail("STACKWARDEN_E2E=required but no Pulumi CLI was found: run `npm run pulumi:install`");
    });
  }

  it.skipIf(!pulumiCli)(
    "Pulumi by hand (docs/pulumi.md): every line exits as it says, no index.js warning, and the stack files stay as committed",
    async () => {
      expect(installed, "the quick start's npm ci").toBe(true);
      const started = Date.now();
      const home = mkdtempSync(join(tmpdir(), "stackwarden-home-"));
      const byHandEnv: NodeJS.ProcessEnv = {};
      for (const [k, v] of Object.entries(process.env))
        if (!/^(STACKWARDEN_|AZURE_|PULUMI_|npm_|VITEST|NODE_OPTIONS)/i.test(k)) byHandEnv[k] = v;
      Object.assign(byHandEnv, {
        HOME: home,
        // A newcomer's machine with the CLI built once (pulumi:install reuses it) and npm's cache: nothing is downloaded.
        STACKWARDEN_CACHE_DIR: dirname(dirname(pulumiCli!.binDir)),
        npm_config_cache: process.env.npm_config_cache ?? join(homedir(), ".npm"),
        PULUMI_SKIP_UPDATE_CHECK: "true",
      });
      const lines = shBlockAfter(docPage("pulumi.md"), "### Pulumi by hand");
      for (const want of ["pulumi stack init dev", "pulumi up", "--expect-no-changes", "git status --porcelain"])
        expect(
          lines.some((l) => l.includes(want)),
          want,
        ).toBe(true);
      // Its install is the quick start's: the very command, in this clone, whose HEAD is still the commit cloned.
      expect(lines[0].replace(/\s+#.*$/, "")).toBe("npm ci");
      expect(runnable[0].commands.some((l) => l.startsWith("npm ci && "))).toBe(true);
      expect((await execFileP("git", ["rev-parse", "HEAD"], { cwd: clone })).stdout.trim()).toBe(clonedAt);
      await waitForFreePorts(portsOf(lines), 240_000);
      const shell = new TypingShell(clone, byHandEnv);
      try {
        for (const line of lines.slice(1)) {
          const r = await shell.type(line, 600_000);
          expect(r.code, `${line}\n${r.output.slice(-4000)}`).toBe(promisedExit(line));
          if (line.startsWith("git status")) expect(r.output.trim(), "the committed stack files changed").toBe("");
          if (line.startsWith("pulumi up")) expect(r.output).toMatch(/CertificateProbe probe-\S+ created/);
        }
        expect(shell.transcript).not.toContain("Found a TypeScript project containing an index.js file");
      } finally {
        await shell.close();
        rmSync(home, { recursive: true, force: true });
        took.push(`docs/pulumi.md Pulumi by hand ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
    },
    1_200_000,
  );

  for (const block of runnable.slice(1)) {
    it(`${block.heading.replace(/^#+ /, "")} (${block.file} line ${block.line}) runs as written`, async () => {
      expect(installed, "the quick start's npm ci").toBe(true);
      await runBlock(block);
    }, 600_000);
  }
});

/** Each address stops answering within 15 s (the block's `kill` reached every job that served it). */
async function expectStopped(origins: string[], at: string): Promise<void> {
  for (const origin of origins) {
    const deadline = Date.now() + 15_000;
    let answered = true;
    while (answered && Date.now() < deadline) {
      answered = await fetch(origin, { signal: AbortSignal.timeout(2_000) }).then(
        () => true,
        () => false,
      );
      if (answered) await new Promise((r) => setTimeout(r, 200));
    }
    expect(answered, `${at}: ${origin} still answers after the block's kill`).toBe(false);
  }
}
