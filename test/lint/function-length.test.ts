import { join } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/**
 * No function in src/ runs over 100 lines (eslint.config.mjs, max-lines-per-function), and the rule
 * is not vacuous: the project's own configuration refuses a 101-line function in src/, counting its
 * blank and comment lines, and leaves tests alone.
 */
const ROOT = join(__dirname, "../..");

/** A function of `lines` lines in all: its signature, `lines - 2` body lines (every third blank, every third a comment), its brace. */
function functionOf(lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => (i % 3 === 0 ? "" : i % 3 === 1 ? `  // step ${i}` : `  n += ${i};`));
  return ["export function long(n: number): number {", ...body.slice(0, -1), "  return n;", "}", ""].join("\n");
}

async function lengthProblems(filePath: string, text: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, filePath) });
  return result.messages.filter((m) => m.ruleId === "max-lines-per-function").map((m) => m.message);
}

describe("function length", () => {
  it("a 101-line function in src/ is refused, blank and comment lines counted; 100 lines pass", async () => {
    expect(await lengthProblems("src/domain/example.ts", functionOf(101))).toEqual([
      "Function 'long' has too many lines (101). Maximum allowed is 100.",
    ]);
    expect(await lengthProblems("src/domain/example.ts", functionOf(100))).toEqual([]);
  }, 60_000);

  it("tests are not held to it", async () => {
    expect(await lengthProblems("test/domain/example.test.ts", functionOf(150))).toEqual([]);
  }, 60_000);
});
