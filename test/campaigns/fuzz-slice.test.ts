import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runStackFuzz, stackFuzzCase } from "../../campaigns/stack-fuzz";

/**
 * 500 cases of the stack-file fuzzing (`npm run fuzz` runs 10 000): every broken stack file gets
 * exit 1, one stderr line with file:line:column, and no API call.
 */
describe("stack-file fuzzing, 500 cases", () => {
  it("every case ends with exit 1, one located line, and no API call", async () => {
    const report = await runStackFuzz({ cases: 500, seed: 20261123 });
    expect(report.failure).toBeUndefined();
    expect(report.cases).toBe(500);
  }, 120_000);

  it("the cases are varied: names, types, keys, enums, duplicates and YAML errors all occur", () => {
    const whats = fc.sample(stackFuzzCase, { numRuns: 400, seed: 3 }).map((c) => c.what);
    for (const kind of [
      /^database (resourceGroup|server|database) "/,
      /= /,
      /^unknown key/,
      /^missing/,
      /^TDE/,
      /^duplicate/,
      /tab/,
      /alias/,
      /duplicate key/,
    ])
      expect(
        whats.some((w) => kind.test(w)),
        String(kind),
      ).toBe(true);
  });
});
