import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command, Option } from "commander";
import { beforeAll, describe, expect, it } from "vitest";
import { COMMANDS, type RegisterCommand } from "../../../src/interfaces/cli/command-registry";
import { buildProgram, jsonAskedIn } from "../../../src/interfaces/cli/main";
import { capturingIO, runCliWith } from "./cli-harness";

// `--output json` takes effect wherever it stands: a parse that fails stops at the flag it failed
// on, so a `--output json` after a bad value was never parsed and no JSON came (issue 40, item 7).
// Every command that answers in JSON is tried both ways, from the registry (a new command is tried too).

/** A command that can answer in JSON, by its path, and an option of it whose value it refuses. */
interface JsonCommand {
  path: string[];
  /** The flag and a value its parser refuses, or an unknown flag. */
  bad: string[];
}

function answersJson(cmd: Command): boolean {
  return cmd.options.some((o) => (o.long === "--output" || o.long === "--format") && accepts(o, "json"));
}

function accepts(o: Option, value: string): boolean {
  try {
    (o as Option & { parseArg?: (v: string, prev: unknown) => unknown }).parseArg?.(value, undefined);
    return o.argChoices ? o.argChoices.includes(value) : true;
  } catch {
    return false;
  }
}

/** A flag of the command with a value its parser refuses (the failure that stops a parse), else an unknown flag. */
function badValueOf(cmd: Command): string[] {
  for (const o of cmd.options) {
    if (!o.long || o.long === "--output" || o.long === "--format" || !(o.required || o.optional)) continue;
    const parse = (o as Option & { parseArg?: unknown }).parseArg;
    if (!parse && !o.argChoices) continue;
    const refused = ["not-a-value!", "-1", "", "zzz"].find((v) => !accepts(o, v));
    if (refused !== undefined) return [o.long, refused];
  }
  return ["--no-such-flag"];
}

const commands: JsonCommand[] = [];
beforeAll(async () => {
  const loaded = new Map<string, RegisterCommand>();
  for (const entry of COMMANDS) loaded.set(entry.name, await entry.load());
  const program = buildProgram(capturingIO({ cwd: tmpdir() }), loaded);
  const walk = (cmd: Command, path: string[]) => {
    if (answersJson(cmd)) commands.push({ path, bad: badValueOf(cmd) });
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  for (const c of program.commands) walk(c, [c.name()]);
});

describe("--output json before or after the flag a parse fails on", () => {
  it("finds the commands that answer in JSON, among them audit verify with its --expect-head", () => {
    expect(commands.length).toBeGreaterThan(5);
    expect(commands.find((c) => c.path.join(" ") === "audit verify")?.bad[0]).toBe("--expect-head");
  });

  it("every such command prints the one JSON error document and the same line, whatever the order", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "sw-json-order-"));
    for (const c of commands) {
      const after = await runCliWith([...c.path, ...c.bad, "--output", "json"], { cwd });
      const before = await runCliWith([...c.path, "--output", "json", ...c.bad], { cwd });
      for (const [order, r] of [
        ["after", after],
        ["before", before],
      ] as const) {
        const what = `${c.path.join(" ")} ${c.bad.join(" ")}, --output json ${order}`;
        expect(r.code, what).toBe(1);
        expect(r.err, what).toMatch(new RegExp(`^stackwarden ${c.path.join(" ")}: SW_USAGE: `));
        expect(r.err.split("\n"), what).toHaveLength(1);
        expect(JSON.parse(r.out), what).toEqual({ error: { code: "SW_USAGE", message: expect.any(String) } });
      }
      expect(JSON.parse(after.out)).toEqual(JSON.parse(before.out));
    }
  });

  it("reads --output json and --format=json in commander's spellings, up to --", () => {
    expect(jsonAskedIn(["audit", "verify", "--expect-head", "abc", "--output", "json"])).toBe(true);
    expect(jsonAskedIn(["check", "--format=json"])).toBe(true);
    expect(jsonAskedIn(["plan", "--output", "table"])).toBe(false);
    expect(jsonAskedIn(["scan", "--", "--output", "json"])).toBe(false);
  });
});
