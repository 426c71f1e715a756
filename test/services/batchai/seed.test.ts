import { describe, expect, it } from "vitest";
import { YamlInputError } from "../../../src/platform/yaml/located-yaml";
import { expandSeed, type BatchAiSeed } from "../../../src/emulator/services/batchai/seed";
import { seedFromYaml } from "../../helpers/emulator";
import { fixtureSeed } from "./batchai-harness";

function seedError(yaml: string): YamlInputError {
  try {
    seedFromYaml(yaml);
  } catch (e) {
    expect(e).toBeInstanceOf(YamlInputError);
    return e as YamlInputError;
  }
  throw new Error("the seed was accepted");
}

describe("the batchai: seed section", () => {
  it("an unknown key is located at its line and column", () => {
    const e = seedError(`batchai:
  workspaces:
    - resourceGroup: rg
      name: ws
      location: eastus
      clusters:
        - name: c1
          vmSzie: STANDARD_NC6
`);
    expect(e.line).toBe(8);
    expect(e.column).toBe(11);
    expect(e.keyPath).toBe("batchai.workspaces[0].clusters[0].vmSzie");
    expect(e.message).toMatch(/^inline-seed\.yaml:8:11: .*unknown key/);
  });

  it("a wrong enum value names the allowed ones", () => {
    const e = seedError(`batchai:
  workspaces:
    - resourceGroup: rg
      name: ws
      location: eastus
      experiments:
        - name: e1
          jobs:
            - { name: j1, executionState: paused }
`);
    expect(e.line).toBe(9);
    expect(e.keyPath).toMatch(/^batchai\.workspaces\[0\]\.experiments\[0\]\.jobs/);
    expect(e.message).toMatch(/queued.*running.*terminating.*succeeded.*failed|must be/);
  });

  it("a missing required key and a name ARM would refuse are errors", () => {
    expect(seedError("batchai:\n  usages:\n    - location: eastus\n").message).toMatch(/usages/);
    expect(seedError("batchai:\n  workspaces:\n    - { resourceGroup: rg, name: 'bad name', location: eastus }\n").line).toBe(3);
    expect(seedError("batchai:\n  generate: { workspaces: 2, jobsPerExperiment: -1 }\n").keyPath).toBe(
      "batchai.generate.jobsPerExperiment",
    );
  });

  it("the fixtures are valid", () => {
    expect(() => fixtureSeed("estate.yaml")).not.toThrow();
    expect(() => fixtureSeed("600-jobs.yaml")).not.toThrow();
  });
});

describe("expansion", () => {
  it("generators give deterministic names and the same state every time", () => {
    const seed: BatchAiSeed = {
      generate: { workspaces: 3, experimentsPerWorkspace: 4, jobsPerExperiment: 50, resourceGroups: ["a", "b"] },
    };
    const s1 = expandSeed(seed);
    expect(JSON.stringify(s1)).toBe(JSON.stringify(expandSeed(seed)));
    expect(s1.workspaces.map((w) => `${w.resourceGroup}/${w.name}`)).toEqual(["a/ws-01", "b/ws-02", "a/ws-03"]);
    expect(s1.workspaces[0].experiments.map((e) => e.name)).toEqual(["exp-01", "exp-02", "exp-03", "exp-04"]);
    expect(s1.workspaces[0].experiments[0].jobs[49].name).toBe("job-0050");
    expect(s1.workspaces.flatMap((w) => w.experiments.flatMap((e) => e.jobs))).toHaveLength(600);
    const states = new Set(s1.workspaces[0].experiments[0].jobs.map((j) => j.executionState));
    expect([...states].sort()).toEqual(["failed", "queued", "running", "succeeded", "terminating"]);
  });

  it("names are unique per parent, case-insensitively", () => {
    expect(() =>
      expandSeed({ workspaces: [{ resourceGroup: "rg", name: "ws", location: "x", clusters: [{ name: "c" }, { name: "C" }] }] }),
    ).toThrow(/batchai\.workspaces\[0\]\.clusters: the cluster 'C' appears twice/);
    expect(() =>
      expandSeed({
        workspaces: [
          { resourceGroup: "rg", name: "ws", location: "x" },
          { resourceGroup: "RG", name: "WS", location: "x" },
        ],
      }),
    ).toThrow(/workspace .* appears twice/);
  });

  it("a job must name a cluster of its workspace", () => {
    expect(() =>
      expandSeed({
        workspaces: [
          { resourceGroup: "rg", name: "ws", location: "x", experiments: [{ name: "e", jobs: [{ name: "j", cluster: "nope" }] }] },
        ],
      }),
    ).toThrow(/job 'j' names cluster 'nope'/);
  });

  it("no section is an empty estate", () => {
    expect(expandSeed(undefined)).toEqual({ version: 1, resourceGroups: [], workspaces: [], usages: [] });
  });
});
