import { describe, expect, it } from "vitest";
import { findRule, registerRule } from "../../../src/domain/compliance/registry";
import { defineRule } from "../../../src/domain/compliance/rule";
import { defineFactKind } from "../../../src/domain/facts/fact-kind";
import { findFactKind, registerFactKind } from "../../../src/domain/facts/registry";

/**
 * A rule that names a fact kind by the kind itself brings the kind along: registering the rule
 * registers the kind, so a kind only that rule judges needs no line in the fact-kind registry.
 */
const toyKind = (key: string) =>
  defineFactKind<{ id: string }>({
    key,
    title: "a toy fact",
    scope: "server",
    gather: async () => [],
    fromResources: () => [],
  });

const toyRule = (id: string, facts: Parameters<typeof defineRule>[0]["facts"]) =>
  defineRule({
    id,
    description: "a toy rule",
    facts,
    settings: {},
    evaluate: () => [],
  } as unknown as Parameters<typeof defineRule>[0]);

describe("a rule that names its fact kind by the kind", () => {
  it("declares the kind's key in facts and the kind in factKinds", () => {
    const kind = toyKind("toyBroughtDeclared");
    const rule = toyRule("toy-brings-declared", [kind, "databases"]);
    expect(rule.facts).toEqual(["toyBroughtDeclared", "databases"]);
    expect(rule.factKinds).toEqual([kind]);
  });

  it("registers the kind when the rule is registered", () => {
    const kind = toyKind("toyBrought");
    expect(findFactKind("toyBrought")).toBeUndefined();
    registerRule(toyRule("toy-brings-kind", [kind]));
    expect(findRule("toy-brings-kind")).toBeDefined();
    expect(findFactKind("toyBrought")).toBe(kind);
  });

  it("accepts the kind already registered by the same object (two rules sharing it)", () => {
    const kind = toyKind("toyShared");
    registerFactKind(kind);
    registerRule(toyRule("toy-shares-kind", [kind]));
    expect(findFactKind("toyShared")).toBe(kind);
  });

  it("refuses a different kind under a registered kind's key, and registers nothing", () => {
    const impostor = toyKind("databases");
    expect(() => registerRule(toyRule("toy-impostor", [impostor]))).toThrow(
      /names a fact kind "databases" that is not the registered kind/,
    );
    expect(findRule("toy-impostor")).toBeUndefined();
    expect(findFactKind("databases")).not.toBe(impostor);
  });
});
