import { describe, expect, it } from "vitest";
import { defineDriftSection, DRIFT_REPORT_KEYS, driftSectionsOf } from "../../../src/domain/compliance/drift-section";
import { allRules, registerRule, ruleIds } from "../../../src/domain/compliance/registry";
import { defineRule } from "../../../src/domain/compliance/rule";

/**
 * Drift's sections are what the rules declare: each once, in registry order of the first rule
 * declaring it; a key that is no JSON-friendly name, one of drift's own fields, or declared twice
 * in two ways is refused when the rule is registered, before any report could render it.
 */
const A = defineDriftSection({ key: "alpha", heading: "Alpha" });
const B = defineDriftSection({ key: "beta", heading: "Beta", namesRule: false });
const rule = (id: string, drift?: ReturnType<typeof defineDriftSection>) =>
  defineRule({
    id,
    title: id,
    description: id,
    help: id,
    defaultLevel: "advisory",
    facts: ["databases"],
    settings: {},
    packScope: "stack",
    ...(drift ? { drift } : {}),
    evaluate: () => [],
  });

describe("driftSectionsOf", () => {
  it("each declared section once, in the order of the first rule declaring it; rules that are not drift add none", () => {
    expect(driftSectionsOf([rule("r1"), rule("r2", B), rule("r3", A), rule("r4", B)])).toEqual([B, A]);
    expect(driftSectionsOf([rule("r1")])).toEqual([]);
  });

  it("the registered rules' sections are valid and distinct (the report would render each)", () => {
    const sections = driftSectionsOf(allRules());
    expect(sections.length).toBeGreaterThan(0);
    expect(new Set(sections.map((s) => s.key)).size).toBe(sections.length);
  });

  it("refuses a key that is not camelCase, one of drift's own fields, an empty heading, and one key declared two ways", () => {
    expect(() => driftSectionsOf([rule("r1", { key: "key-custody", heading: "x" })])).toThrow(/"key-custody" must be camelCase/);
    for (const key of DRIFT_REPORT_KEYS)
      expect(() => driftSectionsOf([rule("r1", { key, heading: "x" })])).toThrow(/drift's own JSON fields/);
    expect(() => driftSectionsOf([rule("r1", { key: "gamma", heading: " " })])).toThrow(/must have a heading/);
    expect(() => driftSectionsOf([rule("r1", A), rule("r2", { key: "alpha", heading: "Other" })])).toThrow(
      /rule "r2" declares drift section "alpha" unlike rule "r1"/,
    );
    expect(() => driftSectionsOf([rule("r1", A), rule("r2", { ...A, namesRule: false })])).toThrow(/unlike rule "r1"/);
    // A section named by a string, as before sections were declared, is refused with what to write instead.
    expect(() => driftSectionsOf([{ id: "r1", drift: "keyCustody" as never }])).toThrow(/r1.*defineDriftSection.*not "keyCustody"/);
    // The same declaration written out twice is one section.
    expect(driftSectionsOf([rule("r1", A), rule("r2", { key: "alpha", heading: "Alpha", namesRule: true })])).toEqual([A]);
  });

  it("registerRule refuses a rule whose section clashes, and registers nothing", () => {
    const taken = driftSectionsOf(allRules())[0];
    const before = ruleIds();
    expect(() => registerRule(rule("toy-clashing-section", { key: taken.key, heading: `${taken.heading}, again` }))).toThrow(/unlike rule/);
    expect(() => registerRule(rule("toy-reserved-section", { key: "errors", heading: "Errors" }))).toThrow(/drift's own JSON fields/);
    expect(ruleIds()).toEqual(before);
  });
});
