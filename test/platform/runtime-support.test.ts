import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { MIN_NODE_MAJOR, runtimeRefusal } from "../../src/platform/runtime-support";
import { PROJECT_ROOT } from "../../src/platform/version";
import { requireCompiledCli, STACKWARDEN_BIN } from "../helpers/cli-process";

// Below Node 22 every command refuses (SW_RUNTIME_UNSUPPORTED) naming `npm run node:install`, while
// `npm start` and `npm test` move themselves onto the project's pinned Node (issue 40, item 10).
// The old Node is the machine's own when it is one (Node 20 on these machines), else the registry's
// 20.20.2 (`npm run node:install -- 20`, cached like the others).

function oldNode(): string {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node"]) {
    if (!existsSync(candidate)) continue;
    const v = execFileSync(candidate, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
    if (Number(v.split(".")[0]) < MIN_NODE_MAJOR) return candidate;
  }
  const bin = execFileSync("bash", [join(PROJECT_ROOT, "scripts", "node-install.sh"), "20"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
    .trim()
    .split("\n")
    .pop()!;
  return join(bin, "node");
}

describe("runtimeRefusal", () => {
  it("refuses Node below 22 in one coded line naming npm run node:install; JSON when asked for; nothing on 22 and later", () => {
    const r = runtimeRefusal("v20.20.2", ["plan", "--stack", "dev"]);
    expect(r?.line).toMatch(/^stackwarden: SW_RUNTIME_UNSUPPORTED: Node v20\.20\.2 is not supported: .*`npm run node:install`/);
    expect(r?.json).toBeUndefined();
    expect(JSON.parse(runtimeRefusal("18.19.0", ["check", "--output", "json"])!.json!)).toEqual({
      error: { code: "SW_RUNTIME_UNSUPPORTED", message: expect.stringMatching(/^Node v18\.19\.0 is not supported/) },
    });
    expect(runtimeRefusal("v22.0.0", [])).toBeUndefined();
    expect(runtimeRefusal("24.21.0", [])).toBeUndefined();
    expect(runtimeRefusal("26.1.0", [])).toBeUndefined();
  });
});

describe("on an old Node", () => {
  let node: string;
  beforeAll(() => {
    requireCompiledCli();
    node = oldNode();
  }, 180_000);

  it("every command refuses, --version and --help included, before reading anything", () => {
    for (const args of [["plan", "--stack", "dev"], ["--version"], ["check", "--help"], ["emulator"]]) {
      const r = spawnSync(node, [STACKWARDEN_BIN, ...args], { cwd: PROJECT_ROOT, encoding: "utf8", env: { PATH: process.env.PATH } });
      expect(r.status, args.join(" ")).toBe(1);
      expect(r.stderr.trim().split("\n"), args.join(" ")).toEqual([
        expect.stringMatching(/^stackwarden: SW_RUNTIME_UNSUPPORTED: Node v(1|20|21)/),
      ]);
      expect(r.stdout).toBe("");
    }
    const json = spawnSync(node, [STACKWARDEN_BIN, "check", "--stack", "dev", "--output", "json"], { cwd: PROJECT_ROOT, encoding: "utf8" });
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "SW_RUNTIME_UNSUPPORTED" } });
  });

  it("npm start and npm test run their command on the pinned Node, saying so in one line", () => {
    const scripts = (JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    for (const name of ["start", "pretest", "test"]) expect(scripts[name], name).toMatch(/^node scripts\/on-supported-node\.js /);
    const r = spawnSync(node, [join(PROJECT_ROOT, "scripts", "on-supported-node.js"), "node", "-p", "process.versions.node"], {
      cwd: PROJECT_ROOT,
      encoding: "utf8",
      env: { ...process.env, PATH: `${join(node, "..")}:${process.env.PATH}` },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(Number(r.stdout.trim().split(".")[0])).toBeGreaterThanOrEqual(MIN_NODE_MAJOR);
    expect(r.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^stackwarden: Node v\S+ is below 22: running `node -p process\.versions\.node` on the project's pinned Node in \S+/,
      ),
    ]);
  });

  it("on a supported Node the wrapper runs the command as it is, with its exit code, and says nothing", () => {
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, "scripts", "on-supported-node.js"), "node", "-e", "process.exit(7)"], {
      encoding: "utf8",
    });
    expect([r.status, r.stderr]).toEqual([7, ""]);
  });
});
