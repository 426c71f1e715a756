import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { allRules } from "../../src/domain/compliance/registry";
import { allFactKinds } from "../../src/domain/facts/registry";

/**
 * A rule id or a fact kind's key is named only where it is declared: adding a rule or a kind is
 * its module plus one registry line, and no list elsewhere (drift's rules, repair's kinds) can miss
 * it. Greps the code of src/, providers/, policies/ and stacks/ (comments left out: prose may
 * mention a rule) for every registered rule id and every fact key used as one, and names each file
 * that does so outside its place.
 */
const ROOT = join(__dirname, "../..");
const TREES = ["src", "providers", "policies", "stacks"];

/** Files outside a rule's or kind's module allowed to use a key, each with why (none now). */
const NOT_YET: Record<string, string> = {};

/** The code files of a tree, relative to the project. */
function codeFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return codeFiles(path);
    return /\.(ts|js|cjs|mjs)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** A file's code without its comments (TypeScript's printer drops them; strings stay as written). */
function codeOf(path: string): string {
  const text = readFileSync(join(ROOT, path), "utf8");
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, path.endsWith(".ts") ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  return ts.createPrinter({ removeComments: true }).printFile(file);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where a rule id appears at all: in a string, a template or an import path (kebab ids are no identifiers). */
const ruleIdUse = (id: string) => new RegExp(`(?<![A-Za-z0-9-])${escape(id)}(?![A-Za-z0-9-])`);

/**
 * Where a fact key is used as one: read off facts (`facts.databases`, `result.facts["databases"]`),
 * named in a list of kinds (`facts: ["databases"]`, `gatherFacts(["keyVaults"], …)`,
 * `alsoGather: [...]`, `.includes("artifacts")`, `findFactKind("usages")`), declared (`key: "probes"`),
 * written into facts (`{ ...facts, tierAdvisors: … }`), taken out of gathered facts
 * (`const { keyVaults } = await gatherFacts(…)`), or its type named by it (`FactMap["placements"]`).
 */
function factKeyUses(key: string): { what: string; re: RegExp }[] {
  const k = escape(key);
  const q = `["'\`]${k}["'\`]`;
  return [
    { what: "read off facts", re: new RegExp(`\\w*[fF]acts\\??\\.${k}\\b|\\w*[fF]acts\\[${q}\\]`) },
    { what: "named in a list of kinds", re: new RegExp(`(facts|alsoGather)\\s*:\\s*\\[[^\\]]*${q}`) },
    { what: "named to gather or find", re: new RegExp(`(gatherFacts|factsFromResources|findFactKind|includes)\\(\\s*\\[?[^)]*${q}`) },
    { what: "declared as a kind's key", re: new RegExp(`\\bkey\\s*:\\s*${q}`) },
    { what: "written into facts", re: new RegExp(`\\.\\.\\.\\s*\\w*[fF]acts\\s*,[^}]*\\b${k}\\s*:`) },
    {
      what: "taken out of gathered facts",
      re: new RegExp(`\\{[^}]*\\b${k}\\b[^}]*\\}\\s*=\\s*(await\\s+)?\\w*(gatherFacts|factsFromResources|runCheck)`),
    },
    { what: "its type named by its key", re: new RegExp(`FactMap\\[${q}\\]`) },
  ];
}

const files = TREES.flatMap(codeFiles).map((path) => ({ path, code: codeOf(path) }));
const declaresRule = (code: string, id: string) =>
  /\bdefineRule\b/.test(code) && new RegExp(`\\bid\\s*:\\s*["']${escape(id)}["']`).test(code);
const declaresKind = (code: string) => /\bdefineFactKind\b/.test(code);
const declaresRules = (code: string) => /\bdefineRule\b/.test(code);
const REGISTRIES = new Set(["src/domain/compliance/registry.ts", "src/domain/facts/registry.ts"]);

describe("rule ids and fact keys are named only where they are declared", () => {
  it("finds what it greps for: every registered rule and kind, in code without comments", () => {
    expect(allRules().length).toBeGreaterThan(0);
    expect(allFactKinds().length).toBeGreaterThan(0);
    for (const r of allRules())
      expect(
        files.some((f) => declaresRule(f.code, r.id)),
        r.id,
      ).toBe(true);
    const sample = files.find((f) => f.path === "src/domain/compliance/rule.ts")!;
    // rule.ts's doc comment spells out an id (`sql-tde-enabled` → `SqlTdeEnabled`): gone with the comments.
    expect(readFileSync(join(ROOT, sample.path), "utf8")).toMatch(ruleIdUse(allRules()[0].id));
    expect(sample.code).not.toMatch(ruleIdUse(allRules()[0].id));
  });

  it("a rule id only in rules' modules (its own, or another's message pointing to it), fact kinds' modules and the rule registry", () => {
    const misplaced = allRules().flatMap((r) =>
      files
        .filter((f) => ruleIdUse(r.id).test(f.code))
        .filter((f) => !declaresRules(f.code) && !REGISTRIES.has(f.path) && !declaresKind(f.code))
        .map((f) => `${f.path} names the rule ${r.id}`),
    );
    expect(misplaced).toEqual([]);
  });

  it("a fact key, used as one, only in fact kinds' and rules' modules, the registries, and the compliance helpers' types", () => {
    const misplaced = allFactKinds().flatMap((k) =>
      factKeyUses(k.key).flatMap(({ what, re }) =>
        files
          .filter((f) => re.test(f.code))
          .filter((f) => !declaresKind(f.code) && !declaresRules(f.code) && !REGISTRIES.has(f.path) && !(f.path in NOT_YET))
          .filter((f) => !(what === "its type named by its key" && f.path.startsWith("src/domain/compliance/")))
          .map((f) => `${f.path}: the fact key ${k.key} ${what}`),
      ),
    );
    expect(misplaced).toEqual([]);
  });

  it("the grep is not vacuous: each pattern finds the uses it is for", () => {
    const code = [
      'const x = facts.databases.length + result.facts["usages"].length;',
      'defineRule({ id: "r", facts: ["tierAdvisors"] });',
      'await gatherFacts(["keyVaults"], input); runCheck({ alsoGather: ["databases"] }); r.facts.includes("artifacts");',
      'defineFactKind({ key: "probes" });',
      "const one = { ...facts, tierAdvisors: [] };",
      "const { placements } = await gatherFacts(keys, input);",
      'type P = FactMap["placements"];',
    ].join("\n");
    const hits = (key: string) =>
      factKeyUses(key)
        .filter(({ re }) => re.test(code))
        .map(({ what }) => what);
    expect(hits("databases")).toEqual(["read off facts", "named in a list of kinds"]);
    expect(hits("usages")).toEqual(["read off facts"]);
    expect(hits("tierAdvisors")).toEqual(["named in a list of kinds", "written into facts"]);
    expect(hits("keyVaults")).toEqual(["named to gather or find"]);
    expect(hits("artifacts")).toEqual(["named to gather or find"]);
    expect(hits("probes")).toEqual(["declared as a kind's key"]);
    expect(hits("placements")).toEqual(["taken out of gathered facts", "its type named by its key"]);
    // What is no use of a key: the stack's config (`stack.databases`), an ARM id's segment type.
    expect(factKeyUses("databases").some(({ re }) => re.test('stack.databases.map((d) => childId(id, "databases", d))'))).toBe(false);
    // And a rule id in a path or a message is found, one inside a longer id is not.
    expect(ruleIdUse("data-residency").test('import { x } from "./rules/data-residency";')).toBe(true);
    expect(ruleIdUse("data-residency").test('"my-data-residency-2"')).toBe(false);
  });

  it("the files not yet moved off a key still exist and are outside this rule for a stated reason", () => {
    for (const [path, why] of Object.entries(NOT_YET)) {
      expect(
        files.some((f) => f.path === path),
        path,
      ).toBe(true);
      expect(why).not.toBe("");
    }
  });

  it("drift and repair name none: no rule id, no fact key, no rule module", () => {
    for (const path of ["src/usecases/drift.ts", "src/domain/reconcile/repair-policy.ts"]) {
      const { code } = files.find((f) => f.path === path)!;
      expect(
        allRules()
          .filter((r) => ruleIdUse(r.id).test(code))
          .map((r) => r.id),
        path,
      ).toEqual([]);
      expect(
        allFactKinds()
          .filter((k) => factKeyUses(k.key).some(({ re }) => re.test(code)))
          .map((k) => k.key),
        path,
      ).toEqual([]);
      expect(code, path).not.toMatch(/compliance\/rules\//);
    }
  });
});
