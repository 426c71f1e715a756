import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { e2eCli, e2eRequired } from "../helpers/pulumi-cli";
import { docPage, freshClone, promisedExit, removeInBackground, shBlockAfter, TypingShell } from "../helpers/readme-blocks";

// docs/pulumi.md's "Pulumi by hand", run as written in a fresh clone with the real Pulumi CLI: npm ci,
// the CLI from the pulumi:install cache, a file backend under a fresh $HOME, stack init with the
// committed stack file, preview and up against the emulator, then the converged stack's
// `preview --refresh --expect-no-changes` and `refresh --preview-only --expect-no-changes` (exit 0),
// no warning about index.js, and the committed stack files unchanged.

const cli = e2eCli();

if (!cli && e2eRequired()) {
  it("has a Pulumi CLI (STACKWARDEN_E2E=required)", () => {
    expect.fail("STACKWARDEN_E2E=required but no Pulumi CLI was found: run `npm run pulumi:install`");
  });
}

it.skipIf(!cli)(
  "Pulumi by hand: every line exits as the README says, no index.js warning, and the stack files stay as committed",
  async () => {
    const clone = freshClone();
    const home = mkdtempSync(join(tmpdir(), "stackwarden-home-"));
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(STACKWARDEN_|AZURE_|PULUMI_|npm_|VITEST|NODE_OPTIONS)/i.test(k)) env[k] = v;
    Object.assign(env, {
      HOME: home,
      // A newcomer's machine with the CLI built once (pulumi:install reuses it) and npm's cache: nothing is downloaded.
      STACKWARDEN_CACHE_DIR: dirname(dirname(cli!.binDir)),
      npm_config_cache: process.env.npm_config_cache ?? join(homedir(), ".npm"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
    });
    const shell = new TypingShell(clone, env);
    try {
      const lines = shBlockAfter(docPage("pulumi.md"), "### Pulumi by hand");
      for (const want of ["pulumi stack init dev", "pulumi up", "--expect-no-changes", "git status --porcelain"])
        expect(
          lines.some((l) => l.includes(want)),
          want,
        ).toBe(true);
      for (const line of lines) {
        const r = await shell.type(line, 600_000);
        expect(r.code, `${line}\n${r.output.slice(-4000)}`).toBe(promisedExit(line));
        if (line.startsWith("git status")) expect(r.output.trim(), "the committed stack files changed").toBe("");
        if (line.startsWith("pulumi up")) expect(r.output).toMatch(/CertificateProbe probe-\S+ created/);
      }
      expect(shell.transcript).not.toContain("Found a TypeScript project containing an index.js file");
    } finally {
      await shell.close();
      removeInBackground(dirname(clone)); // npm ci's ~87 000 files: minutes on a busy disk, after the test
      rmSync(home, { recursive: true, force: true });
    }
  },
  1_800_000,
);
