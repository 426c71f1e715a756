import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GATE_MARKER as MARKER } from "../fixtures/estates/artifact-gate";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { buildExecutableSample, markerRule, type ExecutableSample } from "../helpers/binary-samples";
import { PulumiProject, REPO_ROOT, e2eCli, explain } from "../helpers/pulumi-cli";

// The artifact gate through the real Pulumi CLI: the program registers one ArtifactScan per file of
// stackwarden:artifacts, the provider scans it (against the emulator's binary analysis service),
// and `pulumi preview --policy-pack policies` reports a dirty artifact, also one whose match only
// shows once it is unpacked. The steps share one stack and run in order.

const cli = e2eCli();
const SUB = "00000000-0000-0000-0000-000000000000";
const STACK = "gate";
const TYPE = "pulumi-nodejs:dynamic/artifacts:ArtifactScan";
const DIRTY = `#!/bin/sh\necho deploying # ${MARKER}\n`;
const CLEAN = "#!/bin/sh\necho deploying\n";

describe.skipIf(!cli)("Pulumi CLI end to end: the artifact gate", () => {
  let t: TestEmulator;
  let project: PulumiProject;
  let sample: ExecutableSample;
  const write = (path: string, text: string) => writeFileSync(join(project.dir, path), text);

  beforeAll(async () => {
    t = await startTestEmulator();
    sample = await buildExecutableSample();
    project = new PulumiProject({ cli: cli!, emulatorUrl: t.url });
    project.env.STACKWARDEN_BINARY_ANALYSIS_ENDPOINT = `${t.url}/binary-analysis/v1`;
    for (const d of ["jobs", "tools", "rules", `stacks/${STACK}/signatures`]) mkdirSync(join(project.dir, d), { recursive: true });
    // The repository's sample signature rules, in the stack's own folder as the dev stack keeps them.
    copyFileSync(
      join(REPO_ROOT, "stacks", "dev", "signatures", "test-markers.yar"),
      join(project.dir, "stacks", STACK, "signatures", "test-markers.yar"),
    );
    write("rules/sample.yar", markerRule("sample_exe_marker", sample.marker));
    write("jobs/deploy.sh", CLEAN);
    project.writeStackConfig(STACK, {
      "stackwarden:subscriptionId": SUB,
      "stackwarden:artifacts": { paths: ["jobs/*.sh", "tools/*"], rules: [`stacks/${STACK}/signatures`, "rules"] },
    });
    const login = await project.pulumi(["login", project.backendUrl]);
    expect(login.code, explain(login)).toBe(0);
    const init = await project.pulumi(["stack", "init", STACK]);
    expect(init.code, explain(init)).toBe(0);
  });

  afterAll(async () => {
    project?.cleanup();
    await t?.close();
    if (sample) rmSync(sample.dir, { recursive: true, force: true });
  });

  it("a clean artifact: preview --policy-pack passes and up records its verdict", async () => {
    const preview = await project.pulumi(["preview", "--policy-pack", "policies"]);
    expect(preview.code, explain(preview)).toBe(0);
    expect(preview.stdout).toMatch(new RegExp(`\\+\\s+${TYPE}\\s+artifact-jobs/deploy\\.sh\\s+create`));
    expect(preview.stdout).not.toMatch(/\[(mandatory|advisory)\]/);
    const up = await project.pulumi(["up", "--yes", "--policy-pack", "policies"]);
    expect(up.code, explain(up)).toBe(0);
    const state = await project.pulumi(["stack", "export"]);
    const scan = (
      JSON.parse(state.stdout) as { deployment: { resources: { type: string; outputs: Record<string, unknown> }[] } }
    ).deployment.resources.find((r) => r.type === TYPE);
    expect(scan?.outputs).toMatchObject({ path: "jobs/deploy.sh", verdict: "clean", matches: [], scannedUnpacked: false });
  });

  it("the file gains a string a rule matches: preview shows the changed sha-256 and fails on artifact-signature-clean", async () => {
    write("jobs/deploy.sh", DIRTY);
    const r = await project.pulumi(["preview", "--diff", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).not.toBe(0);
    expect(r.stdout).toMatch(/~\s+sha256\s*:\s*"[0-9a-f]{64}" => "[0-9a-f]{64}"/);
    expect(r.stdout).toMatch(new RegExp(`\\[mandatory\\]\\s+artifact-signature-clean\\s+\\(${TYPE}: artifact-jobs/deploy\\.sh\\)`));
    expect(r.stdout).toContain(
      `Artifact jobs/deploy.sh must not match signature rule stackwarden_gate_test_marker (stacks/gate/signatures/test-markers.yar): matched at offset 0x${DIRTY.indexOf(MARKER).toString(16)}`,
    );
  });

  it("a UPX-packed executable is caught through unpacking, before it was ever deployed", async () => {
    write("jobs/deploy.sh", CLEAN);
    copyFileSync(sample.packed, join(project.dir, "tools", "agent"));
    const r = await project.pulumi(["preview", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).not.toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\[mandatory\\]\\s+artifact-signature-clean\\s+\\(${TYPE}: artifact-tools/agent\\)`));
    expect(r.stdout).toMatch(
      /Artifact tools\/agent must not match signature rule sample_exe_marker \(rules\/sample\.yar\): matched at offset 0x[0-9a-f]+ of its unpacked content/,
    );
    expect(r.stdout).not.toMatch(/artifact-jobs\/deploy\.sh\)/);
  });

  it("up refuses the dirty stack; once clean again, preview passes and the state holds no file contents", async () => {
    const refused = await project.pulumi(["up", "--yes", "--policy-pack", "policies"]);
    expect(refused.code, explain(refused)).not.toBe(0);
    rmSync(join(project.dir, "tools", "agent"));
    const ok = await project.pulumi(["preview", "--refresh", "--expect-no-changes", "--policy-pack", "policies"]);
    expect(ok.code, explain(ok)).toBe(0);
    const state = await project.pulumi(["stack", "export"]);
    expect(state.code, explain(state)).toBe(0);
    expect(state.stdout).not.toContain(MARKER);
    expect(state.stdout).not.toContain(sample.marker);
    expect(state.stdout).not.toContain("echo deploying");
  });
});
