import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { freshClone, promisedExit, readme, shBlockAfter, TypingShell } from "../helpers/readme-blocks";

// The README's first two blocks, run as a newcomer runs them, in a fresh clone: the quick start
// (`npm ci && npm start`; its `npm ci && npm test` line is the suite this test is part of, so it is
// checked to be exactly what .ci/run runs rather than run again) and "Point the CLI at the
// emulator" (start it in the background, one variable, the commands, `kill %1`). The blocks are read
// from the README now, never copied: each line must exit as its comment says (0 when it says nothing).

/** A shell's environment as a newcomer has it: none of the variables that would change what the commands do. */
function newcomerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(STACKWARDEN_|AZURE_|PULUMI_|npm_|VITEST|NODE_OPTIONS)/i.test(k)) env[k] = v;
  return env;
}

const clone = freshClone();
const shell = new TypingShell(clone, newcomerEnv());
// Removing the clone (npm ci's ~28 000 files) took 29 s on a busy shared disk, past the 30 s hook budget with the shell's close.
afterAll(async () => {
  await shell.close();
  rmSync(dirname(clone), { recursive: true, force: true });
}, 120_000);

it("the quick start and the emulator's block run as written, each line exiting as the README says", async () => {
  const text = readme();
  const blocks = [
    { heading: "## Quick start", lines: shBlockAfter(text, "## Quick start") },
    { heading: "### Point the CLI at the emulator", lines: shBlockAfter(text, "### Point the CLI at the emulator") },
  ];
  expect(blocks[0].lines.some((l) => l.startsWith("npm ci && npm start"))).toBe(true);
  const testLine = blocks[0].lines.find((l) => l.startsWith("npm ci && npm test"));
  expect(testLine, "the quick start's test line").toBeDefined();
  const ciRun = readFileSync(join(__dirname, "..", "..", ".ci", "run"), "utf8").split("\n");
  expect(ciRun).toContain(testLine!.replace(/\s+#.*$/, ""));
  expect(blocks[1].lines.some((l) => l.startsWith("export STACKWARDEN_EMULATOR="))).toBe(true);
  for (const { heading, lines } of blocks) {
    for (const line of lines) {
      if (line === testLine) continue;
      const r = await shell.type(line, 600_000);
      expect(r.code, `${heading}: ${line}\n${r.output.slice(-3000)}`).toBe(promisedExit(line));
    }
  }
  // `kill %1` stopped the emulator: nothing answers on its port any more.
  const url = /^export STACKWARDEN_EMULATOR=(\S+)/m.exec(blocks[1].lines.join("\n"))![1];
  const deadline = Date.now() + 10_000;
  let answered = true;
  while (answered && Date.now() < deadline) {
    answered = await fetch(`${url}/metadata/versions`).then(
      () => true,
      () => false,
    );
    if (answered) await new Promise((r) => setTimeout(r, 200));
  }
  expect(answered, `the emulator at ${url} still answers after kill %1`).toBe(false);
}, 1_200_000);
