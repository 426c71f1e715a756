import Ajv from "ajv";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../src/platform/unknown-value";
import { known } from "../../policies/known";
import { policies } from "../../policies/policies";
import { TYPES } from "../helpers/carrier-types";
import { artifactFactsFromProps, type ArtifactFacts } from "../../src/domain/facts/artifact-scans";
import { batchUsages, type UsageFacts } from "../../src/domain/facts/batch-usages";
import { tdeFactsOf } from "../../src/domain/facts/tde-status";
import { tierAdvice, type TierAdvisorFacts } from "../../src/domain/facts/tier-advice";

const POLICIES = policies();

// Each fact kind's pack side, as the analyzer calls it (with CrossGuard's unknown-value reading).
const ctx = { known, clients: undefined as never };
const artifactFacts = (props: Record<string, unknown>, origin?: string): ArtifactFacts => artifactFactsFromProps(props, ctx, origin);
const tdeFacts = (props: Record<string, unknown>) => tdeFactsOf(props, ctx);
const advisorFacts = (props: Record<string, unknown>) =>
  (tierAdvice.fromResources([{ type: TYPES.advisors, props }], ctx) as TierAdvisorFacts[])[0];
const usageFacts = (props: Record<string, unknown>) => batchUsages.fromResources([{ type: TYPES.usages, props }], ctx) as UsageFacts[];

/** The pack's adapters, without a server: resource props → the facts the shared rules judge. */
const SUB = "00000000-0000-0000-0000-000000000000";
const ref = { subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: "orders" };
const ID = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/orders`;

describe("policy adapters", () => {
  it("artifactFacts: an ArtifactScan's outputs as the rules' ArtifactFacts; no verdict yet is UNKNOWN; a recorded error is not clean", () => {
    const outs = {
      path: "tools/agent",
      sha256: "a".repeat(64),
      rulesDigest: "b".repeat(64),
      rules: ["stacks/dev/signatures"],
      verdict: "matched",
      matches: [{ rule: "m", ruleFile: "r.yar", tags: [], offset: 64, length: 4, inUnpackedContent: true }],
      packer: "UPX 3.94",
      scannedUnpacked: true,
    };
    expect(artifactFacts(outs, "urn:x")).toEqual({
      path: "tools/agent",
      sha256: "a".repeat(64),
      rulesDigest: "b".repeat(64),
      verdict: "matched",
      matches: outs.matches,
      packer: "UPX 3.94",
      scannedUnpacked: true,
      origin: "urn:x",
    });
    const { verdict: _v, matches: _m, ...inputsOnly } = outs;
    expect(artifactFacts(inputsOnly)).toMatchObject({ verdict: UNKNOWN, matches: [], scannedUnpacked: false });
    expect(artifactFacts({ ...inputsOnly, verdict: "error" })).toMatchObject({ verdict: "error", scanError: "the file was not scanned" });
  });

  it("tdeFacts: the live status when known, else the desired one (marked as such)", () => {
    expect(tdeFacts({ ...ref, transparentDataEncryption: "Enabled", status: "Disabled" })).toMatchObject({
      id: ID,
      liveTdeStatus: "Disabled",
    });
    expect(tdeFacts({ ...ref, transparentDataEncryption: "Disabled" })).toMatchObject({
      liveTdeStatus: "Disabled",
      tdeStatusSource: "desired",
    });
    expect(tdeFacts({ ...ref, transparentDataEncryption: "Enabled" }).tdeStatusSource).toBe("desired");
  });

  it("advisorFacts: picks `Current` from the API's list, keeps the intended objective", () => {
    const f = advisorFacts({
      ...ref,
      serviceObjective: "S1",
      advisors: [
        { name: "Other", properties: { overallRecommendationServiceLevelObjective: "P1", confidence: 1 } },
        {
          name: "Current",
          properties: {
            overallRecommendationServiceLevelObjective: "S3",
            currentServiceLevelObjective: "S0",
            confidence: 0.9,
            observationPeriodEnd: "2025-06-01T00:00:00Z",
          },
        },
      ],
    });
    expect(f).toMatchObject({
      id: ID,
      intendedServiceObjective: "S1",
      advisor: { name: "Current", overallRecommendationServiceLevelObjective: "S3", confidence: 0.9 },
    });
    expect(advisorFacts({ ...ref, advisors: [] }).advisor).toBeUndefined();
  });

  it("usageFacts: one fact per usage, in the location of the data source", () => {
    expect(
      usageFacts({
        subscriptionId: SUB,
        location: "eastus",
        usages: [{ name: { value: "cores", localizedValue: "Total Regional Cores" }, currentValue: 3, limit: 10, unit: "Count" }],
      }),
    ).toEqual([
      {
        subscriptionId: SUB,
        location: "eastus",
        name: "cores",
        displayName: "Total Regional Cores",
        currentValue: 3,
        limit: 10,
        unit: "Count",
      },
    ]);
    expect(usageFacts({ subscriptionId: SUB, location: "eastus" })).toEqual([]);
    expect(UNKNOWN).toBe(Symbol.for("stackwarden.unknown"));
  });
});

describe("policy config schemas", () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);

  it.each(POLICIES.map((p) => [p.name, p] as const))("%s: a JSON Schema that validates exemptions and thresholds", (_name, p) => {
    const validate = ajv.compile({ type: "object", ...(p.configSchema as object) });
    expect(validate({ exemptions: [{ resourceId: ID, reason: "why", expires: "2025-12-31", rules: ["sql-tde-enabled"] }] })).toBe(true);
    expect(validate({ exemptions: [{ resourceId: ID }] })).toBe(false);
    expect(validate({ exemptions: [{ resourceId: ID, reason: "why", expires: "31/12/2025" }] })).toBe(false);
    expect(validate({ exemptions: [{ resourceId: ID, reason: "why", rules: ["no-such-rule"] }] })).toBe(false);
  });

  it("thresholds are bounded as in the stack file", () => {
    const drift = ajv.compile({ type: "object", ...(POLICIES[1].configSchema as object) });
    const quota = ajv.compile({ type: "object", ...(POLICIES[2].configSchema as object) });
    expect(drift({ minConfidence: 0.5, maxObservationAgeDays: 7 })).toBe(true);
    expect(drift({ minConfidence: 2 })).toBe(false);
    expect(quota({ threshold: 0.9 })).toBe(true);
    expect(quota({ threshold: 0 })).toBe(false);
  });
});
