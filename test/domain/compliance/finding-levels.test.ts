import { describe, expect, it } from "vitest";
import { evaluateCompliance, evaluateRule } from "../../../src/domain/compliance/evaluate";
import { lowerLevel } from "../../../src/domain/compliance/enforcement-level";
import { defineRule, findingBase, resolveSettings } from "../../../src/domain/compliance/rule";
import { emptyFacts } from "../../../src/domain/facts/gather";
import type { ComplianceFacts } from "../../../src/domain/facts/model/compliance-facts";

/**
 * A rule may report a finding at a level of its own, below its configured one (an advisory finding
 * beside mandatory ones), never above: the configured level caps every finding, and the summary
 * counts each at its level. Judged with the test's own rule only, so no other rule's findings count.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const db = (database: string) => ({
  id: `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s/databases/${database}`,
  resourceGroup: "rg",
  server: "s",
  database,
  liveTdeStatus: "Enabled",
});
const facts = { ...emptyFacts(SUB), databases: [db("Upper"), db("longlonglonglong"), db("ok"), db("loud")] } as ComplianceFacts;

/** Upper case: at the rule's level; too long: advisory of its own; `loud`: asks for mandatory whatever the configured level. */
const toy = defineRule({
  id: "toy-own-levels",
  title: "toy",
  description: "toy",
  help: "toy",
  defaultLevel: "mandatory",
  facts: ["databases"],
  settings: {},
  packScope: "stack",
  evaluate: (f, settings) =>
    f.databases.map((d) => {
      const base = findingBase({ id: "toy-own-levels" }, d, d.id, d.database, settings.enforcementLevel);
      if (/[A-Z]/.test(d.database)) return { ...base, verdict: "fail" as const, message: "upper" };
      if (d.database.length > 12) return { ...base, level: "advisory" as const, verdict: "fail" as const, message: "long" };
      if (d.database === "loud") return { ...base, level: "mandatory" as const, verdict: "fail" as const, message: "loud" };
      return { ...base, verdict: "pass" as const, message: "fine" };
    }),
});
const levels = (level: "advisory" | "mandatory") =>
  evaluateRule(toy, facts, { ...resolveSettings(toy, undefined), enforcementLevel: level }, 0).map((f) => [f.label, f.level]);

describe("a finding's own level", () => {
  it("lowerLevel: the lower of two", () => {
    expect(lowerLevel("advisory", "mandatory")).toBe("advisory");
    expect(lowerLevel("mandatory", "advisory")).toBe("advisory");
    expect(lowerLevel("mandatory", "mandatory")).toBe("mandatory");
    expect(lowerLevel("advisory", "disabled")).toBe("disabled");
  });

  it("at the configured level mandatory: each finding keeps its own", () => {
    expect(levels("mandatory")).toEqual([
      ["Upper", "mandatory"],
      ["longlonglonglong", "advisory"],
      ["ok", "mandatory"],
      ["loud", "mandatory"],
    ]);
  });

  it("at the configured level advisory: none is above it, not even one the rule asks to be mandatory", () => {
    expect(levels("advisory").every(([, level]) => level === "advisory")).toBe(true);
  });

  it("the summary counts each at its level, and the stack's level caps them", () => {
    const judge = (enforcementLevel: "advisory" | "mandatory") =>
      evaluateCompliance(facts, { [toy.id]: { ...resolveSettings(toy, undefined), enforcementLevel } }, [], 0, [toy]).summary;
    expect(judge("mandatory")).toMatchObject({ mandatoryViolations: 2, advisoryViolations: 1, passed: 1 });
    expect(judge("advisory")).toMatchObject({ mandatoryViolations: 0, advisoryViolations: 3, passed: 1 });
  });
});
