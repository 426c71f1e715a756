import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { AnalyzerClient } from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/analyzer_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

/**
 * A driver for the stackwarden policy pack over gRPC, as the Pulumi engine drives it: the compiled
 * pack (`dist/policies/index.js`) runs as a child process, prints its port, and answers
 * GetAnalyzerInfo, Configure, Analyze and AnalyzeStack. No Pulumi CLI is needed.
 */

export const PROJECT_ROOT = join(__dirname, "../..");
/** The compiled pack; `npm run build` makes it. */
export const PACK_ENTRY = join(PROJECT_ROOT, "dist", "policies", "index.js");
/** The engine's marker for a value not known during a preview. */
export const UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export type Level = "advisory" | "mandatory" | "disabled";
const LEVELS: Record<Level, proto.EnforcementLevel> = {
  advisory: proto.EnforcementLevel.ADVISORY,
  mandatory: proto.EnforcementLevel.MANDATORY,
  disabled: proto.EnforcementLevel.DISABLED,
};
const LEVEL_NAMES = new Map<proto.EnforcementLevel, string>([
  [proto.EnforcementLevel.ADVISORY, "advisory"],
  [proto.EnforcementLevel.MANDATORY, "mandatory"],
  [proto.EnforcementLevel.DISABLED, "disabled"],
  [proto.EnforcementLevel.REMEDIATE, "remediate"],
]);

export interface PolicySummary {
  name: string;
  description: string;
  enforcementLevel: string;
  type: "resource" | "stack" | "unknown";
  configSchema?: Record<string, unknown>;
}
export interface AnalyzerInfoSummary {
  name: string;
  version: string;
  supportsConfig: boolean;
  policies: PolicySummary[];
}

/** One diagnostic, with the policy's own message split from the description CrossGuard prefixes. */
export interface Violation {
  policyName: string;
  enforcementLevel: string;
  urn: string;
  message: string;
  description: string;
  detail: string;
}

export interface AnalyzerResourceInput {
  type: string;
  urn?: string;
  name?: string;
  props: Record<string, unknown>;
  /** The engine's property dependencies: for each input, the URNs of the resources whose outputs flow into it. */
  propertyDependencies?: Record<string, string[]>;
}

/** A running policy pack and a gRPC client connected to it. */
export class PolicyAnalyzer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: AnalyzerClient,
    readonly port: number,
    readonly stderr: string[],
  ) {}

  /** Spawns `node dist/policies/index.js` in `policies/` (PolicyPack reads its version from the package.json there). */
  /** `nodeArgs` go before the pack's entry (e.g. `--require` of a module that registers a rule). */
  /** `env` is added to its environment after this process's AZURE_* and STACKWARDEN_* are dropped (the engine's environment). */
  static async start(opts: { startTimeoutMs?: number; nodeArgs?: string[]; env?: Record<string, string> } = {}): Promise<PolicyAnalyzer> {
    if (!existsSync(PACK_ENTRY)) throw new Error(`${PACK_ENTRY} is missing: run \`npm run build\` first`);
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(AZURE_|STACKWARDEN_|VITEST|NODE_OPTIONS$)/.test(k)) env[k] = v;
    Object.assign(env, opts.env);
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), PACK_ENTRY], {
      cwd: join(PROJECT_ROOT, "policies"),
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stderr: string[] = [];
    child.stderr!.setEncoding("utf8").on("data", (d: string) => stderr.push(...d.split("\n").filter(Boolean)));
    const timeout = opts.startTimeoutMs ?? 20_000;
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      const fail = (e: Error) => {
        clearTimeout(timer);
        child.kill("SIGKILL");
        reject(new Error(`${e.message}\nanalyzer stderr:\n${stderr.join("\n")}`));
      };
      const timer = setTimeout(() => fail(new Error(`the policy pack printed no port within ${timeout} ms`)), timeout);
      child.once("error", fail);
      child.once("exit", (code, signal) => fail(new Error(`the policy pack exited (${signal ?? code}) before printing its port`)));
      child.stdout!.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        const nl = out.indexOf("\n");
        if (nl < 0) return;
        clearTimeout(timer);
        child.removeAllListeners("exit");
        child.removeAllListeners("error");
        const n = Number(out.slice(0, nl).trim());
        if (Number.isInteger(n) && n > 0) resolve(n);
        else fail(new Error(`the pack's first line is not a port: ${JSON.stringify(out.slice(0, nl))}`));
      });
    });
    // Should the test process end without stop() (a crashed worker), take the pack with it.
    const reap = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    process.once("exit", reap);
    child.once("exit", () => process.removeListener("exit", reap));
    const client = new AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return new PolicyAnalyzer(child, client, port, stderr);
  }

  /** GetAnalyzerInfo, as plain data. */
  async info(): Promise<AnalyzerInfoSummary> {
    const ai = await this.call<Empty, proto.AnalyzerInfo>((req, cb) => this.client.getAnalyzerInfo(req, cb), new Empty());
    return {
      name: ai.getName(),
      version: ai.getVersion(),
      supportsConfig: ai.getSupportsconfig(),
      policies: ai.getPoliciesList().map((p) => ({
        name: p.getName(),
        description: p.getDescription(),
        enforcementLevel: LEVEL_NAMES.get(p.getEnforcementlevel()) ?? String(p.getEnforcementlevel()),
        type:
          p.getPolicyType() === proto.PolicyType.POLICY_TYPE_RESOURCE
            ? "resource"
            : p.getPolicyType() === proto.PolicyType.POLICY_TYPE_STACK
              ? "stack"
              : "unknown",
        configSchema: p.getConfigschema()?.getProperties()?.toJavaScript() as Record<string, unknown> | undefined,
      })),
    };
  }

  /** Configure: per-policy enforcement level and properties. It replaces any earlier configuration, as the engine's does. */
  async configure(config: Record<string, { enforcementLevel: Level; properties?: Record<string, unknown> }>): Promise<void> {
    const req = new proto.ConfigureAnalyzerRequest();
    const map = req.getPolicyconfigMap();
    for (const [name, c] of Object.entries(config)) {
      const pc = new proto.PolicyConfig();
      pc.setEnforcementlevel(LEVELS[c.enforcementLevel]);
      pc.setProperties(Struct.fromJavaScript((c.properties ?? {}) as Parameters<typeof Struct.fromJavaScript>[0]));
      map.set(name, pc);
    }
    await this.call<proto.ConfigureAnalyzerRequest, unknown>((r, cb) => this.client.configure(r, cb), req);
  }

  /** Analyze one resource (what the engine sends before a resource is created or updated). */
  async analyze(r: AnalyzerResourceInput): Promise<Violation[]> {
    const req = new proto.AnalyzeRequest();
    req.setType(r.type);
    req.setUrn(r.urn ?? urnOf(r.type, r.name ?? "res"));
    req.setName(r.name ?? "res");
    req.setProperties(toStruct(r.props));
    req.setOptions(new proto.AnalyzerResourceOptions());
    return violations(await this.call((x, cb) => this.client.analyze(x, cb), req));
  }

  /** AnalyzeStack over every resource of a stack (their outputs, after an update). */
  async analyzeStack(resources: AnalyzerResourceInput[]): Promise<Violation[]> {
    const req = new proto.AnalyzeStackRequest();
    req.setResourcesList(
      resources.map((r, i) => {
        const a = new proto.AnalyzerResource();
        a.setType(r.type);
        a.setName(r.name ?? `res${i}`);
        a.setUrn(r.urn ?? urnOf(r.type, r.name ?? `res${i}`));
        a.setProperties(toStruct(r.props));
        a.setOptions(new proto.AnalyzerResourceOptions());
        for (const [property, urns] of Object.entries(r.propertyDependencies ?? {})) {
          const deps = new proto.AnalyzerPropertyDependencies();
          deps.setUrnsList(urns);
          a.getPropertydependenciesMap().set(property, deps);
        }
        return a;
      }),
    );
    return violations(await this.call((x, cb) => this.client.analyzeStack(x, cb), req));
  }

  /** Closes the client and kills the pack; resolves once it has exited. */
  async stop(): Promise<void> {
    this.client.close();
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      this.child.once("exit", () => resolve());
      this.child.kill("SIGTERM");
      setTimeout(() => {
        if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
      }, 2000).unref();
    });
  }

  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  private call<Req, Res>(fn: (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown, req: Req): Promise<Res> {
    return new Promise((resolve, reject) => {
      fn(req, (err, res) => (err ? reject(new Error(`${err.message}\nanalyzer stderr:\n${this.stderr.join("\n")}`)) : resolve(res)));
    });
  }
}

/** A URN of the test stack for a resource. */
export function urnOf(type: string, name: string): string {
  return `urn:pulumi:test::stackwarden::${type}::${name}`;
}

function toStruct(props: Record<string, unknown>): Struct {
  // Drop undefined (a Struct cannot hold it), keep the unknown marker as the engine sends it.
  return Struct.fromJavaScript(JSON.parse(JSON.stringify(props)) as Parameters<typeof Struct.fromJavaScript>[0]);
}

function violations(res: proto.AnalyzeResponse): Violation[] {
  return res.getDiagnosticsList().map((d) => {
    const description = d.getDescription();
    const message = d.getMessage();
    // CrossGuard sends "<description>\n<message given to reportViolation>".
    const detail = message.startsWith(`${description}\n`) ? message.slice(description.length + 1) : message;
    return {
      policyName: d.getPolicyname(),
      enforcementLevel: LEVEL_NAMES.get(d.getEnforcementlevel()) ?? String(d.getEnforcementlevel()),
      urn: d.getUrn(),
      message,
      description,
      detail,
    };
  });
}
