import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import { UNKNOWN } from "../../../src/platform/unknown-value";
import type { PlacementFacts } from "../../../src/domain/facts/placements";
import { emptyFacts } from "../../../src/domain/facts/gather";
import { findRule, ruleIds } from "../../../src/domain/compliance/registry";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import { dataResidency, judgePlacement } from "../../../src/domain/compliance/rules/data-residency";
import { placementFactsOf as placementFacts } from "../../../src/domain/facts/placements";
import type { Placement } from "../../../src/domain/residency/placement";

/** The data-residency rule's verdicts, as pure functions of placements. */
const SUB = "00000000-0000-0000-0000-000000000000";
const NOW = Date.parse("2025-06-15T12:00:00Z");
const WS = `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/Microsoft.BatchAI/workspaces/ws-nlp`;
const src = (line: number) => ({ file: "stacks/Pulumi.t.yaml", line, column: 7 });

function placed(over: Partial<PlacementFacts> = {}): PlacementFacts {
  return {
    kind: "batch-workspace",
    id: WS,
    label: "rg-ml/ws-nlp",
    region: "westeurope",
    location: "westeurope",
    coordinates: { lat: 52.3667, lng: 4.9 },
    country: "NL",
    reason: "region westeurope at (52.3667, 4.9), near Amsterdam",
    allowedCountries: ["US", "NL"],
    ...over,
  };
}

describe("judgePlacement", () => {
  it("passes a country the stack allows, whatever the case of either", () => {
    expect(judgePlacement(placed())).toEqual({
      verdict: "pass",
      message: "Batch AI workspace rg-ml/ws-nlp is in NL (region westeurope), an allowed country",
    });
    expect(judgePlacement(placed({ country: "nl", allowedCountries: ["us", "nl"] })).verdict).toBe("pass");
  });

  it("fails a country outside the allowed ones, naming the resource, its region and the country", () => {
    expect(judgePlacement(placed({ allowedCountries: ["US"] }))).toEqual({
      verdict: "fail",
      message: "Batch AI workspace rg-ml/ws-nlp must keep its data in US; it is in NL (region westeurope)",
    });
    expect(
      judgePlacement(placed({ kind: "sql-database", label: "sql-prod-2/inventory", region: undefined, location: "West Europe" })).verdict,
    ).toBe("pass");
    expect(
      judgePlacement(placed({ kind: "sql-database", label: "sql-prod-2/inventory", allowedCountries: ["DE", "FR"], country: "NL" }))
        .message,
    ).toBe("SQL database sql-prod-2/inventory must keep its data in DE, FR; it is in NL (region westeurope)");
  });

  it("names a site by its address", () => {
    const site = placed({
      kind: "site",
      id: "site:backup",
      label: "backup",
      region: undefined,
      location: undefined,
      address: "Platz der Republik 1, 11011 Berlin",
      country: "DE",
      allowedCountries: ["NL"],
    });
    expect(judgePlacement(site).message).toBe(
      'site backup must keep its data in NL; it is in DE (address "Platz der Republik 1, 11011 Berlin")',
    );
  });

  it("never passes what could not be placed: not applicable, with the reason", () => {
    const lost = placed({
      country: undefined,
      region: undefined,
      location: "atlantis",
      reason: 'location "atlantis" is not a known Azure region',
    });
    expect(judgePlacement(lost)).toEqual({
      verdict: "not-applicable",
      message: 'Batch AI workspace rg-ml/ws-nlp cannot be placed in a country: location "atlantis" is not a known Azure region',
    });
    // Even when the stack would allow every country it could be in.
    expect(judgePlacement({ ...lost, allowedCountries: ["NL", "US", "DE"] }).verdict).toBe("not-applicable");
    const nowhere = placed({
      kind: "site",
      label: "moon",
      address: "1 Tranquility Base",
      country: undefined,
      reason: "its address could not be geocoded: no match",
    });
    expect(judgePlacement(nowhere).message).toBe("site moon cannot be placed in a country: its address could not be geocoded: no match");
  });

  it("a location not known yet (a preview) is unknown, not a pass", () => {
    expect(judgePlacement(placed({ country: UNKNOWN }))).toEqual({
      verdict: "unknown",
      message: "Batch AI workspace rg-ml/ws-nlp: its location is not known yet",
    });
  });
});

describe("the data-residency rule", () => {
  it("is registered, mandatory by default, judged over the whole stack", () => {
    expect(ruleIds()).toContain("data-residency");
    expect(findRule("data-residency")).toBe(dataResidency);
    expect(dataResidency.defaultLevel).toBe("mandatory");
    expect(dataResidency.packScope).toBe("stack");
  });

  it("without placements (a stack without stackwarden:residency) it has no findings at all", () => {
    const r = evaluateCompliance(emptyFacts(SUB), resolveRuleSettings(undefined), [], NOW);
    expect(r.findings.filter((f) => f.ruleId === "data-residency")).toEqual([]);
  });

  it("one finding per placement, on the resource, at the stack-file line, with the configured level", () => {
    const facts = {
      ...emptyFacts(SUB),
      placements: [
        placed({ allowedCountries: ["US"], source: src(12) }),
        placed({ id: "site:dc", kind: "site" as const, label: "dc", country: "US", allowedCountries: ["US"], source: src(20) }),
        placed({ id: `${WS}x`, label: "rg-ml/ws-nlpx", country: undefined, reason: "no location", allowedCountries: ["US"] }),
      ],
    };
    const r = evaluateCompliance(facts, resolveRuleSettings(undefined), [], NOW);
    expect(r.findings.map((f) => [f.ruleId, f.resourceId, f.verdict, f.level, f.source?.line])).toEqual([
      ["data-residency", WS, "fail", "mandatory", 12],
      ["data-residency", "site:dc", "pass", "mandatory", 20],
      ["data-residency", `${WS}x`, "not-applicable", "mandatory", undefined],
    ]);
    expect(r.summary).toMatchObject({ mandatoryViolations: 1, passed: 1, notApplicable: 1 });
    const advisory = evaluateCompliance(facts, resolveRuleSettings({ "data-residency": { enforcementLevel: "advisory" } }), [], NOW);
    expect(advisory.summary).toMatchObject({ mandatoryViolations: 0, advisoryViolations: 1 });
    const off = evaluateCompliance(facts, resolveRuleSettings({ "data-residency": { enforcementLevel: "disabled" } }), [], NOW);
    expect(off.findings).toEqual([]);
  });

  it("an exemption of the resource turns its violation into exempt", () => {
    const facts = { ...emptyFacts(SUB), placements: [placed({ allowedCountries: ["US"] })] };
    const r = evaluateCompliance(
      facts,
      resolveRuleSettings(undefined),
      [{ resourceId: WS, rules: ["data-residency"], reason: "EU pilot" }],
      NOW,
    );
    expect(r.findings[0]).toMatchObject({ verdict: "exempt" });
    expect(r.summary.mandatoryViolations).toBe(0);
  });
});

describe("placementFacts: a placement in the rule's terms", () => {
  const base: Placement = {
    kind: "sql-database",
    id: "/subscriptions/x/db",
    label: "s/db",
    status: "placed",
    country: "US",
    region: "eastus",
    location: "East US",
    coordinates: { lat: 37.3719, lng: -79.8164 },
    reason: "region eastus",
    source: src(4),
  };

  it("carries the country only when placed, with the allowed countries and the origin", () => {
    expect(placementFacts(base, ["US"], "urn:x")).toEqual({
      kind: "sql-database",
      id: "/subscriptions/x/db",
      label: "s/db",
      region: "eastus",
      location: "East US",
      address: undefined,
      coordinates: { lat: 37.3719, lng: -79.8164 },
      country: "US",
      reason: "region eastus",
      allowedCountries: ["US"],
      source: src(4),
      origin: "urn:x",
    });
    expect(placementFacts({ ...base, status: "not-applicable", country: "US" }, ["US"]).country).toBeUndefined();
  });
});
