import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { stackwardenRepository } from "../../src/interfaces/gitops/stackwarden-repository";
import { PROJECT_ROOT } from "../../src/platform/version";

// The workflows are used by reference from other repositories, so every one of their jobs sets
// stackwarden up from stackwarden's repository at this version's tag (what `init`'s callers name
// too), never from the caller's workspace (`./.github/...`, `scripts/github/`, `policies`).

type Step = { uses?: string; run?: string; with?: Record<string, string> };
const WORKFLOWS = join(PROJECT_ROOT, ".github", "workflows");
const files = readdirSync(WORKFLOWS).filter((f) => f.endsWith(".yml"));

describe.each(files)("%s", (file) => {
  const text = readFileSync(join(WORKFLOWS, file), "utf8");
  const wf = parse(text) as { on: Record<string, unknown>; jobs: Record<string, { steps: Step[] }> };

  it("can be called (workflow_call) with the stacks folder, the state URL and the engine", () => {
    const call = wf.on.workflow_call as { inputs: Record<string, { type: string }> };
    expect(Object.keys(call.inputs).sort()).toEqual(["engine", "stacks-dir", "state-url"]);
  });

  it("sets stackwarden up in every job from stackwarden's repository at this version, and reads nothing of stackwarden from the workspace", () => {
    const { repository, ref } = stackwardenRepository();
    for (const [id, job] of Object.entries(wf.jobs)) {
      const setups = job.steps.filter((s) => s.uses?.includes("setup-stackwarden"));
      expect(
        setups.map((s) => s.uses),
        id,
      ).toEqual([`${repository}/.github/actions/setup-stackwarden@${ref}`]);
    }
    expect(text).not.toMatch(/uses: \.\/|scripts\/github\/|--policy-pack policies/);
  });
});
