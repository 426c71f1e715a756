import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRuleSet, ruleSources, RuleSetError } from "../../../src/domain/artifacts/rule-set";
import { tempDir } from "../../helpers/binary-samples";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { compile } from "@litko/yara-x";
import { localArtifactFiles } from "../../../src/platform/files/artifact-files";

let base: string;
beforeAll(() => {
  base = tempDir("stackwarden-rules-");
  mkdirSync(join(base, "rules", "sub"), { recursive: true });
  mkdirSync(join(base, "empty"));
  writeFileSync(join(base, "rules", "b.yar"), "rule b { condition: true }");
  writeFileSync(join(base, "rules", "a.yara"), "rule a { condition: true }");
  writeFileSync(join(base, "rules", "sub", "c.yar"), "rule c { condition: true }");
  writeFileSync(join(base, "rules", "notes.txt"), "not a rule");
  writeFileSync(join(base, "extra.yar"), "rule extra { condition: true }");
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("rule sets", () => {
  it("reads folders recursively in name order, then files, each once", () => {
    const set = loadRuleSet(localArtifactFiles, base, ["rules", "extra.yar", "rules/b.yar"]);
    expect(set.files.map((f) => f.path)).toEqual(["rules/a.yara", "rules/b.yar", "rules/sub/c.yar", "extra.yar"]);
    expect(ruleSources(set).map((s) => s.name)).toEqual(set.files.map((f) => f.path));
    expect(set.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("has a digest that changes with any rule's content and stays put otherwise", () => {
    const before = loadRuleSet(localArtifactFiles, base, ["rules"]).digest;
    expect(loadRuleSet(localArtifactFiles, base, ["rules"]).digest).toBe(before);
    writeFileSync(join(base, "rules", "sub", "c.yar"), "rule c { condition: false }");
    expect(loadRuleSet(localArtifactFiles, base, ["rules"]).digest).not.toBe(before);
  });

  it("says which reference is unusable", () => {
    expect(() => loadRuleSet(localArtifactFiles, base, ["nope.yar"], "stackwarden:artifacts.rules")).toThrow(
      new RuleSetError(`stackwarden:artifacts.rules[0]: nope.yar does not exist (relative to ${base})`),
    );
    expect(() => loadRuleSet(localArtifactFiles, base, ["rules", "empty"])).toThrow(
      "rules[1]: the folder empty holds no .yar or .yara files",
    );
    expect(() => loadRuleSet(localArtifactFiles, base, [])).toThrow("rules: no rule files given");
  });

  it("ships sample rules that compile", () => {
    const set = loadRuleSet(localArtifactFiles, PROJECT_ROOT, ["stacks/dev/signatures"]);
    expect(set.files.length).toBeGreaterThan(0);
    for (const f of set.files) expect(() => compile(f.source), f.path).not.toThrow();
  });
});
