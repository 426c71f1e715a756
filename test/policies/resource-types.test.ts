import { describe, expect, it, vi } from "vitest";
import { known } from "../../policies/known";
import { policies } from "../../policies/policies";
import { allRules } from "../../src/domain/compliance/registry";
import type { ResourceInput } from "../../src/domain/facts/fact-kind";
import { PROGRAM_TYPES } from "../../src/domain/facts/programs/program-of";
import { allFactKinds, findFactKind } from "../../src/domain/facts/registry";
import { TYPES } from "../helpers/carrier-types";

// The pack answers a resource policy at once for a type none of its rule's kinds reads
// (FactKind.resourceTypes): these prove that skipping it changes no verdict.

const ctx = { known, clients: { env: {} } as never };
/** Every type the pack's kinds know of, and one no kind reads. */
const UNIVERSE = [
  ...new Set([
    ...Object.values(TYPES),
    ...PROGRAM_TYPES,
    ...allFactKinds().flatMap((k) => k.resourceTypes ?? []),
    "azure-native:storage:StorageAccount",
  ]),
];

describe("resource types a fact kind reads", () => {
  it("a kind that declares its types builds no fact from a resource of any other type the pack knows", async () => {
    const declaring = allFactKinds().filter((k) => k.resourceTypes);
    expect(declaring.length).toBeGreaterThan(0);
    for (const kind of declaring)
      for (const type of UNIVERSE.filter((t) => !kind.resourceTypes!.includes(t))) {
        const resource: ResourceInput = { type, props: {}, urn: `urn:pulumi:t::p::${type}::r` };
        expect(await kind.fromResources([resource], ctx), `${kind.key} from ${type}`).toEqual([]);
      }
  });

  it("a resource policy builds no facts for a resource whose type none of its kinds reads, and still judges the types they read", async () => {
    const rule = allRules().find((r) => r.packScope === "resource" && r.facts.every((k) => findFactKind(k)?.resourceTypes))!;
    const kind = findFactKind(rule.facts[0])!;
    const policy = policies().find((p) => p.name === rule.id)!;
    if (!("validateResource" in policy) || typeof policy.validateResource !== "function")
      throw new Error(`${rule.id} is no resource policy`);
    const validate = policy.validateResource;
    const spy = vi.spyOn(kind, "fromResources");
    try {
      const args = (type: string) => ({ type, props: {}, urn: `urn:pulumi:t::p::${type}::r`, name: "r", getConfig: () => ({}) }) as never;
      await validate(args("azure-native:storage:StorageAccount"), () => {});
      expect(spy).not.toHaveBeenCalled();
      await validate(args(kind.resourceTypes![0]), () => {});
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});
