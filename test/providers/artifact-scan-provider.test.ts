import { createHash } from "node:crypto";
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRuleSet } from "../../src/domain/artifacts/rule-set";
import * as sourceProviders from "../../providers";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { GATE_MARKER as MARKER, gateProject } from "../fixtures/estates/artifact-gate";
import { buildExecutableSample, type ExecutableSample } from "../helpers/binary-samples";
import { DynamicResourceDriver, PROJECT_ROOT, ProviderPlugin, UNKNOWN } from "../helpers/provider-plugin";
import { localArtifactFiles } from "../../src/platform/files/artifact-files";

/**
 * The ArtifactScan data source's provider: serialized, re-loaded from its text with
 * require-from-string as the dynamic-provider plugin does, and called (source and compiled); then
 * through the real plugin over gRPC. The project is a temporary directory with a Pulumi.yaml (the
 * plugin runs there); STACKWARDEN_HOME points at this checkout's compiled core.
 */

const requireFromString = require("require-from-string") as (code: string) => { handler(): pulumi.dynamic.ResourceProvider };
const TYPE = "pulumi-nodejs:dynamic/artifacts:ArtifactScan";
type P = Required<pulumi.dynamic.ResourceProvider>;
const ORIGINS: [string, () => { providerText(name: "artifactScan"): string }][] = [
  ["source (vitest)", () => sourceProviders],
  ["compiled (dist/)", () => require(join(PROJECT_ROOT, "dist/providers/index.js")) as typeof sourceProviders],
];

let emu: TestEmulator;
let sample: ExecutableSample;
let project: string;
const sha = (file: string) =>
  createHash("sha256")
    .update(readFileSync(join(project, file)))
    .digest("hex");
const digest = () => loadRuleSet(localArtifactFiles, project, ["rules"]).digest;
const inputs = (path: string) => ({ path, sha256: sha(path), rulesDigest: digest(), rules: ["rules"] });

beforeAll(async () => {
  emu = await startTestEmulator();
  sample = await buildExecutableSample();
  project = gateProject("stackwarden-artifact-provider-", sample, ["jobs", "tools"]);
  writeFileSync(join(project, "jobs", "clean.sh"), "#!/bin/sh\necho clean\n");
  writeFileSync(join(project, "jobs", "dirty.sh"), `#!/bin/sh\necho dirty # ${MARKER}\n`);
  copyFileSync(sample.packed, join(project, "tools", "agent"));
});
afterAll(async () => {
  await emu?.close();
  if (project) rmSync(project, { recursive: true, force: true });
  if (sample) rmSync(sample.dir, { recursive: true, force: true });
});

/** Runs `fn` in the project with the provider's environment, restoring both after. */
async function inProject<T>(env: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const cwd = process.cwd();
  const keys = ["STACKWARDEN_HOME", "STACKWARDEN_BINARY_ANALYSIS_ENDPOINT"];
  const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
  process.env.STACKWARDEN_HOME = PROJECT_ROOT;
  process.env.STACKWARDEN_BINARY_ANALYSIS_ENDPOINT = `${emu.url}/binary-analysis/v1`;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  process.chdir(project);
  try {
    return await fn();
  } finally {
    process.chdir(cwd);
    for (const k of keys) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}

const scans = () => emu.emu.stats.byRoute["POST /binary-analysis/v1/apply-yara-rules"] ?? 0;

for (const [origin, load] of ORIGINS) {
  describe(`ArtifactScan provider, serialized and re-loaded: ${origin}`, () => {
    let p: P;
    let text: string;
    beforeAll(async () => {
      text = load().providerText("artifactScan");
      // The text finds the project at STACKWARDEN_HOME (the plugin runs in stacks/, this process in the project).
      const saved = process.env.STACKWARDEN_HOME;
      process.env.STACKWARDEN_HOME = PROJECT_ROOT;
      try {
        p = requireFromString(text).handler() as P;
      } finally {
        if (saved === undefined) delete process.env.STACKWARDEN_HOME;
        else process.env.STACKWARDEN_HOME = saved;
      }
    });

    it("is small and captures no core", () => {
      expect(text.length).toBeLessThanOrEqual(1024);
      expect(text).toContain("dist/providers/provider-entry.js");
      expect(text).not.toMatch(/undici|function scanArtifacts|class BinaryAnalysisClient|@pulumi\/pulumi|new Map\b/);
    });

    it("check scans a clean file and carries the verdict with the inputs; a second check with the same olds scans nothing", async () => {
      await inProject({}, async () => {
        const i = inputs("jobs/clean.sh");
        const before = scans();
        const r = await p.check({}, i);
        expect(r).toEqual({ inputs: { ...i, verdict: "clean", matches: [], scannedUnpacked: false }, failures: [] });
        expect(scans()).toBe(before + 1);
        expect(await p.check(r.inputs, i)).toEqual(r);
        expect(scans()).toBe(before + 1);
      });
    });

    it("a dirty file: matched, with rule, tags and offset; the state holds no file contents", async () => {
      await inProject({}, async () => {
        const { inputs: checked, failures } = await p.check({}, inputs("jobs/dirty.sh"));
        expect(failures).toEqual([]);
        const created = await p.create(checked);
        expect(created.id).toBe("artifact:jobs/dirty.sh");
        const offset = readFileSync(join(project, "jobs", "dirty.sh"), "latin1").indexOf(MARKER);
        expect(created.outs).toEqual({
          ...inputs("jobs/dirty.sh"),
          verdict: "matched",
          matches: [
            {
              rule: "stackwarden_gate_test_marker",
              ruleFile: "rules/test-markers.yar",
              tags: ["test_marker"],
              offset,
              length: MARKER.length,
              inUnpackedContent: false,
            },
          ],
          scannedUnpacked: false,
        });
        expect(JSON.stringify(created.outs)).not.toContain(MARKER);
        expect(JSON.stringify(created.outs)).not.toContain("echo dirty");
      });
    });

    it("a UPX-packed executable is judged through unpacking (the offset is in its unpacked content)", async () => {
      await inProject({}, async () => {
        const created = await p.create(inputs("tools/agent"));
        expect(created.outs).toMatchObject({
          verdict: "matched",
          packer: expect.stringMatching(/^UPX 3\./),
          scannedUnpacked: true,
          matches: [{ rule: "sample_exe_marker", offset: readFileSync(sample.exe).indexOf(sample.marker), inUnpackedContent: true }],
        });
      });
    });

    it("diff: a new file content or rule set is an update, another path a replacement; the same inputs are no change", async () => {
      await inProject({}, async () => {
        const { outs } = await p.create(inputs("jobs/clean.sh"));
        expect(await p.diff("artifact:jobs/clean.sh", outs, (await p.check(outs, inputs("jobs/clean.sh"))).inputs)).toEqual({
          changes: false,
          replaces: [],
        });
        expect(await p.diff("artifact:jobs/clean.sh", outs, { ...inputs("jobs/clean.sh"), sha256: "0".repeat(64) })).toEqual({
          changes: true,
          replaces: [],
        });
        expect(await p.diff("artifact:jobs/clean.sh", outs, { ...inputs("jobs/clean.sh"), rulesDigest: "1".repeat(64) })).toEqual({
          changes: true,
          replaces: [],
        });
        expect(await p.diff("artifact:jobs/clean.sh", outs, inputs("jobs/dirty.sh"))).toEqual({ changes: true, replaces: ["path"] });
      });
    });

    it("check failures name the input: shapes, a file changed since the program hashed it, a changed rule set, no endpoint", async () => {
      await inProject({}, async () => {
        const bad = await p.check({}, { path: "", sha256: "xyz", rulesDigest: 7, rules: [], color: "red" });
        expect(bad.failures!.map((f) => f.property).sort()).toEqual(["color", "path", "rules", "rulesDigest", "sha256"]);
        const stale = await p.check({}, { ...inputs("jobs/clean.sh"), sha256: "0".repeat(64) });
        expect(stale.failures).toEqual([
          {
            property: "sha256",
            reason: expect.stringMatching(/^jobs\/clean\.sh changed since the program hashed it \(now sha256 [0-9a-f]{64}\); run again$/),
          },
        ]);
        const rules = await p.check({}, { ...inputs("jobs/clean.sh"), rulesDigest: "1".repeat(64) });
        expect(rules.failures).toEqual([
          { property: "rulesDigest", reason: expect.stringContaining("the rule set changed since the program computed its digest") },
        ]);
        const missing = await p.check({}, { ...inputs("jobs/clean.sh"), path: "jobs/gone.sh" });
        expect(missing.failures).toEqual([{ property: "path", reason: `jobs/gone.sh: no such file in ${project}` }]);
        // Unknown inputs (a preview of values computed elsewhere) are not judged and not scanned.
        expect(await p.check({}, { ...inputs("jobs/clean.sh"), sha256: UNKNOWN })).toEqual({
          inputs: { ...inputs("jobs/clean.sh"), sha256: UNKNOWN },
          failures: [],
        });
      });
      await inProject({ STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: undefined }, async () => {
        const r = await p.check({}, inputs("jobs/clean.sh"));
        expect(r.failures).toEqual([
          {
            property: "path",
            reason: expect.stringContaining("jobs/clean.sh cannot be scanned: STACKWARDEN_BINARY_ANALYSIS_ENDPOINT is not set"),
          },
        ]);
      });
    });

    it("read (refresh): unchanged state stays as it is without a scan; a changed file is scanned again; a removed one is gone", async () => {
      await inProject({}, async () => {
        writeFileSync(join(project, "jobs", "changing.sh"), "echo one\n");
        const { id, outs } = await p.create(inputs("jobs/changing.sh"));
        const before = scans();
        expect(await p.read(id, outs)).toEqual({ id, props: outs, inputs: outs });
        expect(scans()).toBe(before);
        writeFileSync(join(project, "jobs", "changing.sh"), `echo two ${MARKER}\n`);
        const refreshed = await p.read(id, outs);
        expect(refreshed.props).toMatchObject({ sha256: sha("jobs/changing.sh"), verdict: "matched" });
        expect(refreshed.inputs).toEqual(refreshed.props);
        rmSync(join(project, "jobs", "changing.sh"));
        expect(await p.read(id, refreshed.props!)).toEqual({ id: "" });
        await expect(p.read(id, {})).rejects.toThrow(/cannot be looked up by id alone/);
      });
    });

    it("delete sends nothing", async () => {
      await inProject({}, async () => {
        const { id, outs } = await p.create(inputs("jobs/clean.sh"));
        const before = emu.emu.stats.total;
        await p.delete(id, outs);
        expect(emu.emu.stats.total).toBe(before);
      });
    });
  });
}

describe("ArtifactScan through the dynamic-provider plugin (gRPC), embedded engine", () => {
  let plugin: ProviderPlugin;
  let scan: DynamicResourceDriver;
  beforeAll(async () => {
    // The plugin runs in the project; its scans use the built-in engine in its own process.
    plugin = await ProviderPlugin.start({
      cwd: project,
      env: { STACKWARDEN_HOME: PROJECT_ROOT, STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: "embedded" },
    });
    await plugin.configure();
    const compiled = require(join(PROJECT_ROOT, "dist/providers/index.js")) as typeof sourceProviders;
    scan = new DynamicResourceDriver(plugin, compiled.providerText("artifactScan"), TYPE, "artifact-jobs/dirty.sh");
  });
  afterAll(async () => {
    await plugin?.close();
  });

  it("Check carries the verdict (what a preview's planned outputs are); Create returns it; no request reaches the emulator", async () => {
    const before = emu.emu.stats.total;
    const checked = await scan.check(inputs("jobs/dirty.sh"));
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).toMatchObject({
      verdict: "matched",
      matches: [{ rule: "stackwarden_gate_test_marker", inUnpackedContent: false }],
    });
    const created = await scan.create(checked.inputs);
    expect(created).toEqual({ id: "artifact:jobs/dirty.sh", properties: checked.inputs });
    expect((await scan.diff(created.id, created.properties, checked.inputs)).changes).toBe("none");
    expect(emu.emu.stats.total).toBe(before);
  });
});
