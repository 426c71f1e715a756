import { spawn } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { stringify } from "yaml";
import type { PulumiCli } from "../src/platform/programs/pulumi-engine";

/** The checkout: the first directory above this file (src or dist) with Pulumi.yaml and package.json. */
export function repoRoot(): string {
  for (let d = __dirname; ; d = dirname(d)) {
    if (existsSync(join(d, "Pulumi.yaml")) && existsSync(join(d, "package.json"))) return d;
    if (dirname(d) === d) throw new Error(`no Pulumi.yaml above ${__dirname}`);
  }
}

/** Peak resident set sizes (VmHWM) of the processes a command started, by role, in MB. */
export interface PeakRss {
  /** The Node.js process that runs the Pulumi program (started by pulumi-language-nodejs). */
  program: number;
  /** The Go language host, pulumi-language-nodejs. */
  languageHost: number;
  /** The Node.js dynamic-provider plugin (pulumi-resource-pulumi-nodejs). */
  providerPlugin: number;
}

export interface Run {
  code: number | null;
  ms: number;
  out: string;
  rss: PeakRss;
}

/** The role of a descendant process, from its command line. */
function roleOf(cmdline: string): keyof PeakRss | undefined {
  if (cmdline.includes("dynamic-provider")) return "providerPlugin";
  if (cmdline.includes("pulumi-language-nodejs")) return "languageHost";
  if (/@pulumi[/\\]pulumi[/\\]cmd[/\\]run\b/.test(cmdline)) return "program";
  return undefined;
}

/**
 * Samples, every 100 ms, the peak RSS (VmHWM in /proc/<pid>/status: the kernel keeps the peak, so
 * sampling misses nothing a process reached before the last sample) of every descendant of `root`.
 */
function sampleRss(root: number, peak: PeakRss): void {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return; // no /proc: no RSS figures
  }
  const parent = new Map<number, number>();
  for (const e of entries) {
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      /* gone */
    }
  }
  const isDescendant = (pid: number) => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  for (const pid of parent.keys()) {
    if (!isDescendant(pid)) continue;
    try {
      const role = roleOf(readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " "));
      if (!role) continue;
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (hwm) peak[role] = Math.max(peak[role], Number(hwm[1]) / 1024);
    } catch {
      /* gone */
    }
  }
}

/** Runs a command, collecting its output and the peak RSS of its descendants. */
export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const rss: PeakRss = { program: 0, languageHost: 0, providerPlugin: 0 };
    const timer = setInterval(() => sampleRss(child.pid!, rss), 100);
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.on("error", (e) => {
      clearInterval(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearInterval(timer);
      resolve({ code, ms: performance.now() - t0, out, rss });
    });
  });
}

/** Throws with the command's output unless it exited with one of `ok`. */
export function must(r: Run, what: string, ok: (number | null)[] = [0]): Run {
  if (!ok.includes(r.code)) throw new Error(`${what} exited ${r.code}:\n${r.out.slice(-4000)}`);
  return r;
}

/** A throw-away Pulumi project with its own PULUMI_HOME and file:// backend. */
export class BenchProject {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly cli: PulumiCli,
    root: string,
    name: string,
    extraEnv: Record<string, string>,
  ) {
    this.dir = join(root, name);
    mkdirSync(join(this.dir, "stacks"), { recursive: true });
    mkdirSync(join(root, `${name}-backend`));
    const base: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(PULUMI_|STACKWARDEN_|AZURE_)/.test(k)) base[k] = v;
    this.env = {
      ...base,
      PATH: [cli.binDir, process.env.PATH ?? ""].join(delimiter),
      PULUMI_HOME: join(root, "pulumi-home"),
      PULUMI_BACKEND_URL: `file://${join(root, `${name}-backend`)}`,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_CONFIG_PASSPHRASE: "bench",
      ...extraEnv,
    };
  }

  /**
   * A copy of stackwarden's project for a stack: Pulumi.yaml, package.json, stacks/index.js and the
   * compiled dist/ copied (so that source positions in the state read as they do in a checkout,
   * `project:///stacks/program.ts#…`, not through symlinks), node_modules and specs/ linked.
   */
  static stackwarden(cli: PulumiCli, root: string, extraEnv: Record<string, string>): BenchProject {
    const p = new BenchProject(cli, root, "stackwarden", extraEnv);
    const repo = repoRoot();
    for (const f of ["Pulumi.yaml", "package.json", "stacks/index.js"]) copyFileSync(join(repo, f), join(p.dir, f));
    cpSync(join(repo, "dist"), join(p.dir, "dist"), { recursive: true });
    // What the compiled code reads at run time (the API specs, the dependencies) is linked.
    for (const f of ["node_modules", "specs"]) symlinkSync(join(repo, f), join(p.dir, f));
    return p;
  }

  writeStack(stack: string, config: Record<string, unknown>): void {
    writeFileSync(join(this.dir, "stacks", `Pulumi.${stack}.yaml`), stringify({ config }));
  }

  pulumi(args: string[]): Promise<Run> {
    return run(this.cli.command, [...args, "--non-interactive", "--color", "never"], this.dir, this.env);
  }
}

/**
 * The engine's floor: a project whose compiled JavaScript program registers, per database, as many
 * dynamic resources as stackwarden's (three, the third depending on the first), with the same
 * inputs, served by the same Node.js dynamic-provider plugin, and a provider that does nothing
 * (check passes, diff finds no change, create and read echo the inputs). What it costs is the
 * engine, the language host and the plugin, per resource.
 * - `lean` (the floor the ratios use): the resources store, like stackwarden's, a ~200-byte provider
 *   text and one frame of source position, so the state per resource is as small as stackwarden's
 *   less its data: the difference measured is stackwarden's own work.
 * - `standard`: `pulumi.dynamic.Resource` as Pulumi's documentation writes it (a serialized closure
 *   and the whole call stack in every resource), for reference.
 */
export function floorProject(cli: PulumiCli, root: string, style: "lean" | "standard" = "lean"): BenchProject {
  const p = new BenchProject(cli, root, `floor-${style}`, {});
  const repo = repoRoot();
  writeFileSync(
    join(p.dir, "Pulumi.yaml"),
    stringify({ name: "floor", runtime: { name: "nodejs", options: { typescript: false } }, main: "index.js", stackConfigDir: "stacks" }),
  );
  writeFileSync(join(p.dir, "package.json"), JSON.stringify({ name: "floor", private: true, main: "index.js" }));
  symlinkSync(join(repo, "node_modules"), join(p.dir, "node_modules"));
  const lean = `
const NOOP = 'exports.handler=()=>({async check(o,n){return{inputs:n,failures:[]}},async diff(){return{changes:false}},async create(i){return{id:i.kind+"/"+i.database,outs:i}},async read(id,p){return{id,props:p,inputs:p}},async update(_,o,n){return{outs:n}},async delete(){}})';
class Noop extends pulumi.CustomResource {
  constructor(type, name, props, opts) {
    // One frame of source position, as stackwarden's resources record (providers/lean-dynamic-resource.ts).
    const previous = Error.prepareStackTrace;
    Error.prepareStackTrace = (e, s) => {
      const kept = s.slice(0, 6);
      return previous ? previous(e, kept) : String(e) + kept.map((x) => "\\n    at " + x).join("");
    };
    try {
      super("pulumi-nodejs:dynamic/floor:" + type, name, { ...props, __provider: NOOP }, opts);
    } finally {
      Error.prepareStackTrace = previous;
    }
  }
}
const resource = (type, name, props, opts) => new Noop(type, name, props, opts);
`;
  const standard = `
const noop = {
  async check(_olds, news) { return { inputs: news, failures: [] }; },
  async diff() { return { changes: false }; },
  async create(inputs) { return { id: inputs.kind + "/" + inputs.database, outs: inputs }; },
  async read(id, props) { return { id, props, inputs: props }; },
  async update(_id, _olds, news) { return { outs: news }; },
  async delete() {},
};
const resource = (type, name, props, opts) => new pulumi.dynamic.Resource(noop, name, props, opts, "floor", type);
`;
  writeFileSync(
    join(p.dir, "index.js"),
    `"use strict";
const pulumi = require("@pulumi/pulumi");
${style === "lean" ? lean : standard}
const databases = JSON.parse(new pulumi.Config("floor").require("databases"));
for (const d of databases) {
  const ref = { subscriptionId: "00000000-0000-0000-0000-000000000000", resourceGroup: d.resourceGroup, server: d.server, database: d.database };
  const name = [d.resourceGroup, d.server, d.database].join("-");
  const tde = resource("Tde", "tde-" + name, { ...ref, kind: "tde", transparentDataEncryption: "Enabled" });
  resource("Advisors", "advisors-" + name, { ...ref, kind: "advisors" });
  resource("Activity", "tde-activity-" + name, { ...ref, kind: "activity" }, { dependsOn: [tde] });
}
`,
  );
  return p;
}

/** Removes a bench's temporary tree. */
export function cleanup(root: string): void {
  rmSync(root, { recursive: true, force: true });
}

/** A fresh temporary root for a bench's projects. */
export function benchRoot(): string {
  return mkdtempSync(join(tmpdir(), "stackwarden-bench-pulumi-"));
}
