import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONDITION_REASONS } from "../../../src/interfaces/watch/status/condition-reasons";
import { ERROR_CODES } from "../../../src/platform/errors/error-codes";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { docPage } from "../../helpers/readme-blocks";

// The catalogue of stable error codes is the one list: docs/reference.md's table (generated from it) says the same, and no
// code is dead (each is thrown, or mapped to, somewhere in src/ by its name, so a grep finds it).

/** The rows of the first Markdown table after `heading` whose header starts with `first`. */
function tableAfter(text: string, heading: string, first: string): string[][] {
  const at = text.indexOf(`\n${heading}\n`);
  expect(at, `README: no heading "${heading}"`).toBeGreaterThan(0);
  const lines = text.slice(at).split("\n");
  const start = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  expect(start, `README: no table starting with "${first}" after "${heading}"`).toBeGreaterThan(0);
  const rows: string[][] = [];
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith("|")) break;
    rows.push(
      l
        .slice(1, -1)
        .split(" | ")
        .map((c) => c.trim()),
    );
  }
  return rows;
}

const unquote = (cell: string) => cell.replace(/^`|`$/g, "");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("the error code catalogue", () => {
  it("names every code SW_ and upper-case words, with an exit code, whether retrying helps, and what to do", () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^SW_[A-Z0-9]+(_[A-Z0-9]+)*$/);
      expect(Number.isInteger(info.exit) && info.exit >= 1, code).toBe(true);
      expect(["transient", "person"]).toContain(info.retry);
      expect(info.action.length, code).toBeGreaterThan(20);
    }
  });

  it("is the README's table: the same codes in the same order, with the same exit codes and retry advice", () => {
    const rows = tableAfter(docPage("reference.md"), "## Errors and their codes", "code");
    expect(rows.map((r) => unquote(r[0]))).toEqual(Object.keys(ERROR_CODES));
    for (const [code, exit, retry, action] of rows) {
      const info = ERROR_CODES[unquote(code) as keyof typeof ERROR_CODES];
      expect([Number(exit), retry], code).toEqual([info.exit, info.retry === "transient" ? "yes" : "no"]);
      expect(action, code).toBe(info.action);
    }
  });

  it("has no dead code: each is thrown or mapped to by its name somewhere in src/", () => {
    // The catalogue itself and the reasons that list codes do not count: they name codes, they throw none.
    const listing = new Set(["src/platform/errors/error-codes.ts", "src/interfaces/watch/status/condition-reasons.ts"]);
    const text = sourceFiles(join(PROJECT_ROOT, "src"))
      .filter((f) => !listing.has(f.slice(PROJECT_ROOT.length + 1)))
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    const dead = Object.keys(ERROR_CODES).filter((code) => !text.includes(`"${code}"`));
    expect(dead).toEqual([]);
  });
});

describe("the watcher's condition reasons", () => {
  it("are the README's table: the same reasons, conditions, kinds and codes", () => {
    const rows = tableAfter(docPage("reference.md"), "### Watcher condition reasons", "reason");
    expect(rows.map((r) => unquote(r[0]))).toEqual(Object.keys(CONDITION_REASONS));
    for (const [reason, condition, kind, codes] of rows) {
      const info = CONDITION_REASONS[unquote(reason) as keyof typeof CONDITION_REASONS];
      const listed = codes === "—" ? [] : codes.split(", ").map(unquote);
      expect([condition, kind, listed], reason).toEqual([info.condition, info.kind, [...info.codes]]);
    }
  });
});
