import { describe, expect, it } from "vitest";
import { parseStackConfig, stackConfigFromValues } from "../../../src/domain/stack/stack-config";
import { YamlInputError } from "../../../src/platform/yaml/located-yaml";

const HEAD = "config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n";
const FILE = "stacks/Pulumi.t.yaml";

function refusal(text: string): YamlInputError {
  try {
    parseStackConfig(FILE, text, {});
  } catch (e) {
    expect(e).toBeInstanceOf(YamlInputError);
    return e as YamlInputError;
  }
  throw new Error("the stack must be refused");
}

describe("stackwarden:residency", () => {
  it("reads allowed countries and sites, with the lines they are written on", () => {
    const stack = parseStackConfig(
      FILE,
      `${HEAD}  stackwarden:residency:
    allowedCountries: [DE, FR, NL, NL]
    sites:
      - { name: backup-dc, address: "Dam 1, 1012 JS Amsterdam, Netherlands" }
      - name: replica
        address: Platz der Republik 1, 11011 Berlin
`,
      {},
    );
    expect(stack.residency).toEqual({
      allowedCountries: ["DE", "FR", "NL"],
      sites: [
        { name: "backup-dc", address: "Dam 1, 1012 JS Amsterdam, Netherlands", source: { file: FILE, line: 6, column: 9 } },
        { name: "replica", address: "Platz der Republik 1, 11011 Berlin", source: { file: FILE, line: 7, column: 9 } },
      ],
      source: { file: FILE, line: 4, column: 5 },
    });
  });

  it("is absent when the stack does not set it", () => {
    expect(parseStackConfig(FILE, HEAD, {}).residency).toBeUndefined();
  });

  it.each([
    [
      "a code ISO does not assign, with the right one",
      "    allowedCountries: [NL, UK]\n",
      4,
      '"UK" is not an ISO 3166-1 alpha-2 country code (use GB)',
      "allowedCountries[1]",
    ],
    ["a lower-case code", "    allowedCountries: [nl]\n", 4, 'write country codes in upper case: "NL"', "allowedCountries[0]"],
    ["a code of three letters", "    allowedCountries: [NLD]\n", 4, "must match pattern", "allowedCountries[0]"],
    ["an empty list", "    allowedCountries: []\n", 4, "must NOT have fewer than 1 items", "allowedCountries"],
    ["no list", "    sites: []\n", 4, 'missing required key "allowedCountries"', "residency"],
    [
      "a site without an address",
      "    allowedCountries: [NL]\n    sites: [{ name: a }]\n",
      5,
      'missing required key "address"',
      "sites[0]",
    ],
    [
      "a site named twice",
      '    allowedCountries: [NL]\n    sites:\n      - { name: a, address: "Dam 1, Amsterdam" }\n      - { name: A, address: "Dam 2, Amsterdam" }\n',
      7,
      'duplicate site name "A": already sites[0]',
      "sites[1].name",
    ],
    ["an unknown key", "    allowedCountries: [NL]\n    regions: [westeurope]\n", 5, "unknown key", "regions"],
  ])("refuses %s, naming its line", (_name, body, line, problem, path) => {
    const e = refusal(`${HEAD}  stackwarden:residency:\n${body}`);
    expect(e.message.split("\n")).toHaveLength(1);
    expect(e.line).toBe(line);
    expect(e.problem).toContain(problem);
    expect(e.keyPath).toContain(path);
  });

  it("is validated the same way from the Pulumi program's values", () => {
    const values = {
      "stackwarden:subscriptionId": "00000000-0000-0000-0000-000000000000",
      "stackwarden:residency": { allowedCountries: ["EU"] },
    };
    expect(() => stackConfigFromValues(values, "stack dev config")).toThrow(
      'stack dev config: stackwarden:residency.allowedCountries[0]: "EU" is not an ISO 3166-1 alpha-2 country code',
    );
  });
});
