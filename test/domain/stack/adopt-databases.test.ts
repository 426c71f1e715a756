import { describe, expect, it } from "vitest";
import { adoptDatabases, type AdoptedEntry } from "../../../src/domain/stack/adopt-databases";
import { parseStackConfig } from "../../../src/domain/stack/stack-config";

const SUB = "00000000-0000-0000-0000-000000000000";
const BILLING: AdoptedEntry = { resourceGroup: "rg-data", server: "sql-b", database: "billing", transparentDataEncryption: "Enabled" };
const OTHER: AdoptedEntry = {
  subscriptionId: "11111111-1111-1111-1111-111111111111",
  resourceGroup: "rg-x",
  server: "sql-c",
  database: "#odd name",
  transparentDataEncryption: "Enabled",
};

/** The lines of `after` with those of `before` taken out in order: what was inserted (every original line kept, in order). */
function inserted(before: string, after: string): string[] {
  const old = before.split("\n");
  const out: string[] = [];
  let i = 0;
  for (const line of after.split("\n")) {
    if (i < old.length && line === old[i]) i++;
    else out.push(line);
  }
  expect(i, "every original line is kept, in order").toBe(old.length);
  return out;
}

describe("adoptDatabases", () => {
  it("appends block entries after the last one, under a comment, leaving every other byte", () => {
    const text = `# head comment
config:
  stackwarden:subscriptionId: ${SUB}   # the subscription
  stackwarden:databases:
    - resourceGroup: rg-data
      server: sql-a
      database: orders   # the shop
      transparentDataEncryption: Enabled
  # a comment about the next key
  stackwarden:policies: {}
`;
    const after = adoptDatabases(text, [BILLING, OTHER], "adopted");
    expect(inserted(text, after)).toEqual([
      "    # adopted",
      "    - resourceGroup: rg-data",
      "      server: sql-b",
      "      database: billing",
      "      transparentDataEncryption: Enabled",
      "    - subscriptionId: 11111111-1111-1111-1111-111111111111",
      "      resourceGroup: rg-x",
      "      server: sql-c",
      '      database: "#odd name"',
      "      transparentDataEncryption: Enabled",
    ]);
    expect(after.indexOf("# adopted")).toBeLessThan(after.indexOf("# a comment about the next key"));
    const stack = parseStackConfig("s.yaml", after, {});
    expect(stack.databases.map((d) => d.database)).toEqual(["orders", "billing", "#odd name"]);
    expect(stack.databases[2].subscriptionId).toBe(OTHER.subscriptionId);
  });

  it("follows `{ … }` entries in their own style", () => {
    const text = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n    - { resourceGroup: rg-data, server: sql-a, database: orders, transparentDataEncryption: Enabled }\n  stackwarden:policies: {}\n`;
    expect(inserted(text, adoptDatabases(text, [BILLING], "adopted"))).toEqual([
      "    # adopted",
      "    - { resourceGroup: rg-data, server: sql-b, database: billing, transparentDataEncryption: Enabled }",
    ]);
  });

  it("adds the key after the subscription when the file lists none, and fills an empty list", () => {
    const bare = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:policies: {}\n`;
    const added = adoptDatabases(bare, [BILLING], "adopted");
    expect(inserted(bare, added)[0]).toBe("  stackwarden:databases:");
    expect(parseStackConfig("s.yaml", added, {}).databases).toHaveLength(1);
    const empty = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases: []\n  stackwarden:policies: {}\n`;
    const filled = adoptDatabases(empty, [BILLING], "adopted");
    expect(parseStackConfig("s.yaml", filled, {}).databases.map((d) => d.database)).toEqual(["billing"]);
    expect(filled).toContain("  stackwarden:policies: {}\n");
  });
});
