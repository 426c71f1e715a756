import { describe, expect, it } from "vitest";
import { parseStackConfig, stackConfigFromValues } from "../../../src/domain/stack/stack-config";
import { YamlInputError } from "../../../src/platform/yaml/located-yaml";

const G = "00000000-0000-0000-0000-000000000000";
const head = `config:\n  stackwarden:subscriptionId: ${G}\n`;

describe("stackwarden:artifacts", () => {
  it("reads paths and rules with where each was written", () => {
    const s = parseStackConfig(
      "stacks/Pulumi.gate.yaml",
      `${head}  stackwarden:artifacts:\n    paths: [stacks/gate/jobs/**/*.py, tools/bin/*]\n    rules:\n      - stacks/gate/signatures\n      - extra/local.yar\n`,
      {},
    );
    expect(s.artifacts).toMatchObject({
      paths: ["stacks/gate/jobs/**/*.py", "tools/bin/*"],
      rules: ["stacks/gate/signatures", "extra/local.yar"],
      source: { file: "stacks/Pulumi.gate.yaml", line: 4 },
    });
    expect(s.artifacts!.pathSources!.map((l) => l?.line)).toEqual([4, 4]);
    expect(s.artifacts!.ruleSources!.map((l) => l?.line)).toEqual([6, 7]);
  });

  it("is absent when the stack names no artifacts, and reads the same from Pulumi config values", () => {
    expect(parseStackConfig("s.yaml", head, {}).artifacts).toBeUndefined();
    const s = stackConfigFromValues(
      { "stackwarden:subscriptionId": G, "stackwarden:artifacts": { paths: ["a/*"], rules: ["r.yar"] } },
      "stack x config",
    );
    expect(s.artifacts).toMatchObject({ paths: ["a/*"], rules: ["r.yar"] });
  });

  it.each([
    ["paths is not a list", `  stackwarden:artifacts:\n    paths: jobs/*.py\n    rules: [r]\n`, 4, "config.stackwarden:artifacts.paths"],
    ["rules are missing", `  stackwarden:artifacts:\n    paths: [a]\n`, 4, "config.stackwarden:artifacts"],
    ["an unknown key", `  stackwarden:artifacts:\n    paths: [a]\n    rules: [r]\n    exclude: [b]\n`, 6, "config.stackwarden:artifacts"],
    ["an empty glob", `  stackwarden:artifacts:\n    paths: [""]\n    rules: [r]\n`, 4, "config.stackwarden:artifacts.paths[0]"],
  ])("refuses %s on its line", (_name, body, line, path) => {
    let err: unknown;
    try {
      parseStackConfig("stacks/Pulumi.bad.yaml", head + body, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(YamlInputError);
    const e = err as YamlInputError;
    expect(e.message.startsWith(`stacks/Pulumi.bad.yaml:${line}:`), e.message).toBe(true);
    expect(e.keyPath.startsWith(path), e.message).toBe(true);
  });
});
