import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseStackConfig, stackConfigFromValues } from "../../../src/domain/stack/stack-config";
import { loadStackFile } from "../../../src/usecases/stack-file";
import { YamlInputError } from "../../../src/platform/yaml/located-yaml";

import { BAD, DB, G, HEAD } from "./bad-stacks";

describe("bad stack files: one located line each", () => {
  it.each(BAD)("%s", (name, text, line, column, path, problem) => {
    const file = `stacks/Pulumi.${name.replace(/\W+/g, "-")}.yaml`;
    let err: unknown;
    try {
      parseStackConfig(file, text, {});
    } catch (e) {
      err = e;
    }
    expect(err, "the file must be refused").toBeInstanceOf(YamlInputError);
    const e = err as YamlInputError;
    expect(e.message.split("\n")).toHaveLength(1);
    expect(e.message.startsWith(`${file}:${line}:${column}: `), e.message).toBe(true);
    expect(e.keyPath.startsWith(path), e.message).toBe(true);
    expect(e.problem, e.message).toContain(problem);
  });
});

describe("stack files that cannot be read", () => {
  const messageOf = (path: string, cwd: string) => {
    try {
      loadStackFile(path, {}, cwd);
    } catch (e) {
      expect(e).toBeInstanceOf(YamlInputError);
      return (e as Error).message;
    }
    throw new Error("the file must be refused");
  };

  it("a missing stack: no position, and the stacks that do exist beside it", () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-stacks-"));
    try {
      mkdirSync(join(dir, "stacks"));
      for (const n of ["prod", "dev"]) writeFileSync(join(dir, "stacks", `Pulumi.${n}.yaml`), `config: {}\n`);
      expect(messageOf(join(dir, "stacks", "Pulumi.staging.yaml"), dir)).toBe(
        "stacks/Pulumi.staging.yaml: stack file not found (stacks here: dev, prod)",
      );
      expect(messageOf(join(dir, "nowhere", "Pulumi.x.yaml"), dir)).toBe("nowhere/Pulumi.x.yaml: stack file not found");
      expect(messageOf(join(dir, "stacks"), dir)).toBe("stacks: this is a directory, not a stack file");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("good stack files", () => {
  it("leaves other namespaces and Pulumi's own top-level keys alone", () => {
    const s = parseStackConfig(
      "s.yaml",
      `encryptionsalt: v1:x\nsecretsprovider: passphrase\nconfig:\n  aws:region: eu-west-1\n  other:thing: { a: 1 }\n  stackwarden:subscriptionId: ${G}\n`,
      {},
    );
    expect(s.subscriptionId).toBe(G);
    expect(s.databases).toEqual([]);
  });

  it("takes a secure subscription id from STACKWARDEN_SUBSCRIPTION_ID", () => {
    const s = parseStackConfig("s.yaml", `config:\n  stackwarden:subscriptionId:\n    secure: v1:AAAA\n`, {
      STACKWARDEN_SUBSCRIPTION_ID: G,
    });
    expect(s.subscriptionId).toBe(G);
  });

  it("gives the same stack from pulumi.Config values as from the YAML (locations aside)", () => {
    const yaml = parseStackConfig(
      "s.yaml",
      `${HEAD}  stackwarden:databases:\n${DB("      serviceObjective: S3\n")}  stackwarden:batch: { locations: [eastus] }\n  stackwarden:policies: { batch-quota-headroom: { threshold: 0.5 } }\n`,
      {},
    );
    const fromValues = stackConfigFromValues(
      {
        "stackwarden:subscriptionId": G,
        "stackwarden:databases": [
          { resourceGroup: "rg", server: "s1", database: "orders", transparentDataEncryption: "Enabled", serviceObjective: "S3" },
        ],
        "stackwarden:batch": { locations: ["eastus"] },
        "stackwarden:policies": { "batch-quota-headroom": { threshold: 0.5 } },
      },
      "pulumi config",
    );
    const strip = (s: typeof yaml) =>
      JSON.parse(
        JSON.stringify({
          ...s,
          file: "",
          databases: s.databases.map(({ source: _s, ...d }) => d),
          batch: { ...s.batch, source: undefined },
        }),
      );
    expect(strip(fromValues)).toEqual(strip(yaml));
    expect(yaml.databases[0].source).toEqual({ file: "s.yaml", line: 4, column: 7 });
  });

  it("names the key path when pulumi.Config values are wrong", () => {
    expect(() =>
      stackConfigFromValues(
        {
          "stackwarden:subscriptionId": G,
          "stackwarden:databases": [{ resourceGroup: "rg", server: "s", database: "d", transparentDataEncryption: "yes" }],
        },
        "stack dev config",
      ),
    ).toThrow(/^stack dev config: stackwarden:databases\[0\]\.transparentDataEncryption: must be one of/);
  });
});
