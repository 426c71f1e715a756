import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS, commandTerm } from "../../../src/interfaces/cli/command-registry";
import { Help } from "commander";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { capturingIO, runCliWith } from "./cli-harness";

/** The CLI in the checkout, with an empty environment. */
const cli = (...argv: string[]) => runCliWith(argv, { cwd: PROJECT_ROOT });
const captureIO = () => capturingIO({ cwd: PROJECT_ROOT });

describe("the lazy command registry", () => {
  it("each entry loads a module that declares the command under the same name and description", async () => {
    for (const entry of COMMANDS) {
      const program = new Command("stackwarden");
      (await entry.load())(program, captureIO());
      const declared = program.commands.find((c) => c.name() === entry.name);
      expect(declared, entry.name).toBeDefined();
      expect(declared!.description(), entry.name).toBe(entry.description);
      // The listing shows it as commander would show the loaded command.
      expect(commandTerm(entry), entry.name).toBe(new Help().subcommandTerm(declared!));
    }
  });

  it("--help lists every command with its description; a command's own --help (and help NAME) shows its options", async () => {
    const r = await cli("--help");
    expect(r.code).toBe(0);
    const help = r.out.replace(/\s+/g, " ");
    for (const entry of COMMANDS) {
      expect(help).toContain(commandTerm(entry));
      expect(help).toContain(entry.description.replace(/\s+/g, " "));
    }
    for (const argv of [
      ["plan", "--help"],
      ["help", "plan"],
    ]) {
      const one = await cli(...argv);
      expect(one.code).toBe(0);
      expect(one.out).toContain("--concurrency <n>");
    }
  });

  it("a listed command that is dispatched before it was loaded is loaded and the line parsed again", async () => {
    const { buildProgram } = await import("../../../src/interfaces/cli/main");
    // Nothing loaded: the listing's placeholder for plan is what commander dispatches to.
    await expect(buildProgram(captureIO()).parseAsync(["plan", "--stack", "x"], { from: "user" })).rejects.toThrow(/not loaded/);
    // main loads it (by name, or after that refusal) and the command really runs.
    const r = await cli("plan", "--stack", "no-such-stack");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/Pulumi\.no-such-stack\.yaml: stack file not found/);
  });

  it("--version and --help load no command module and no heavy dependency (compiled CLI, child process)", () => {
    for (const flag of ["--version", "--help"]) {
      const script = `require(${JSON.stringify(join(PROJECT_ROOT, "dist/src/interfaces/cli/main.js"))}).main([${JSON.stringify(flag)}], { out() {}, err() {}, isTTY: false, env: {}, cwd: ".", exitCode: 0 }).then(() => process.stdout.write(JSON.stringify(Object.keys(require.cache))))`;
      const loaded = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })) as string[];
      const ours = loaded.filter((p) => p.includes(`${PROJECT_ROOT}/dist/`)).map((p) => p.slice(PROJECT_ROOT.length + 1));
      expect(
        ours.filter((p) => p.includes("/commands/")),
        flag,
      ).toEqual([]);
      for (const heavy of ["/node_modules/yaml/", "/node_modules/ajv/", "/node_modules/undici/", "/node_modules/@pulumi/", "/emulator/"]) {
        expect(
          loaded.filter((p) => p.includes(heavy)),
          `${flag} loaded ${heavy}`,
        ).toEqual([]);
      }
    }
  });
});
