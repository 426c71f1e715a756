import { describe, expect, it } from "vitest";
import { known } from "../../policies/known";
import { UNKNOWN } from "../../src/platform/unknown-value";
// @pulumi/policy's unknown-checking proxy and the engine's sentinel for an unknown string, as its server hands a policy the properties.
const { unknownCheckingProxy, unknownStringValue } = require("@pulumi/policy/proxy") as {
  unknownCheckingProxy: <T>(o: T) => T;
  unknownStringValue: string;
};

describe("known", () => {
  const props = unknownCheckingProxy({ serverName: unknownStringValue, state: "Enabled", nested: { id: unknownStringValue } });

  it("gives UNKNOWN for a read of an unknown at any depth, the value otherwise", () => {
    expect(known(() => props.serverName)).toBe(UNKNOWN);
    expect(known(() => props.nested.id)).toBe(UNKNOWN);
    expect(known(() => props.state)).toBe("Enabled");
  });

  it("reads an unknown without capturing a stack trace (the cost of reading one), and leaves the stack trace limit as it was", () => {
    const before = Error.stackTraceLimit;
    let stack: string | undefined;
    const v = known(() => {
      try {
        return props.serverName;
      } catch (e) {
        stack = (e as Error).stack;
        throw e;
      }
    });
    expect(v).toBe(UNKNOWN);
    expect(stack).toBeDefined();
    expect(stack).not.toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(before);
  });

  it("throws any other error with its stack trace, nested or not", () => {
    const fault = () => (props.state as unknown as { x: { y: number } }).x.y;
    expect(() => known(fault)).toThrow(TypeError);
    try {
      known(() => known(fault));
    } catch (e) {
      expect((e as Error).stack).toMatch(/\n\s+at /);
    }
    expect.assertions(2);
  });
});
