import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

/**
 * A driver for Pulumi's Node.js dynamic-provider plugin over gRPC, as the engine drives it: the
 * plugin runs as a child process, and every request carries the serialized provider in its
 * `__provider` property. No Pulumi CLI is needed.
 */

/** The project root (the plugin runs there, as it does under `pulumi up`). */
export const PROJECT_ROOT = join(__dirname, "../..");
/** The engine's marker for a value not known during a preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const PROVIDER_KEY = "__provider";

type Props = Record<string, unknown>;

export interface PluginOptions {
  /** Working directory of the plugin. Default: the program's directory, `stacks/`, where Pulumi starts it. */
  cwd?: string;
  /** Variables added to the plugin's environment (after AZURE_* and STACKWARDEN_* of this process are dropped). */
  env?: Record<string, string>;
  /** How long to wait for the plugin to print its port. Default 20 s. */
  startTimeoutMs?: number;
}

export interface CheckResult {
  inputs: Props;
  failures: { property: string; reason: string }[];
}
export interface DiffResult {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
}
export interface ReadResult {
  id: string;
  properties: Props;
  inputs?: Props;
}

/** A running dynamic-provider plugin and a gRPC client connected to it. */
export class ProviderPlugin {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: ResourceProviderClient,
    /** The port the plugin listens on. */
    readonly port: number,
    private readonly stderrLines: string[],
  ) {}

  /** Spawns `node @pulumi/pulumi/cmd/dynamic-provider 127.0.0.1:1` and connects once it prints its port. */
  static async start(opts: PluginOptions = {}): Promise<ProviderPlugin> {
    const pkg = dirname(require.resolve("@pulumi/pulumi/package.json"));
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (/^(AZURE_|STACKWARDEN_|VITEST|NODE_OPTIONS$)/.test(k)) continue;
      env[k] = v;
    }
    Object.assign(env, { PULUMI_NODEJS_PROJECT: "stackwarden", PULUMI_NODEJS_STACK: "test", ...opts.env });
    // The engine address is never dialled by the dynamic provider; any address will do.
    const child = spawn(process.execPath, [join(pkg, "cmd/dynamic-provider/index.js"), "127.0.0.1:1"], {
      cwd: opts.cwd ?? join(PROJECT_ROOT, "stacks"),
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stderrLines: string[] = [];
    child.stderr!.setEncoding("utf8").on("data", (d: string) => stderrLines.push(...d.split("\n").filter(Boolean)));
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(
        () => fail(new Error(`the dynamic-provider plugin printed no port within ${opts.startTimeoutMs ?? 20_000} ms`)),
        opts.startTimeoutMs ?? 20_000,
      );
      const fail = (e: Error) => {
        clearTimeout(timer);
        child.kill("SIGKILL");
        reject(new Error(`${e.message}\nplugin stderr:\n${stderrLines.join("\n")}`));
      };
      child.once("error", fail);
      child.once("exit", (code, signal) =>
        fail(new Error(`the dynamic-provider plugin exited (${signal ?? code}) before printing its port`)),
      );
      child.stdout!.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        const nl = out.indexOf("\n");
        if (nl < 0) return;
        const n = Number(out.slice(0, nl).trim());
        clearTimeout(timer);
        child.removeAllListeners("exit");
        if (Number.isInteger(n) && n > 0) resolve(n);
        else fail(new Error(`the plugin's first line is not a port: ${JSON.stringify(out.slice(0, nl))}`));
      });
    });
    const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return new ProviderPlugin(child, client, port, stderrLines);
  }

  /** What the plugin wrote to stderr so far (it logs provider errors there). */
  get stderr(): string {
    return this.stderrLines.join("\n");
  }

  /** The plugin's process id (what a lock it takes names as its holder). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether the plugin process is still running. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Configure, as the engine sends it before anything else. */
  async configure(args: Props = {}): Promise<void> {
    const req = new proto.ConfigureRequest();
    req.setArgs(toStruct(args));
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    await this.unary("configure", req);
  }

  async check(urn: string, olds: Props, news: Props): Promise<CheckResult> {
    const req = new proto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    const res = await this.unary<proto.CheckResponse>("check", req);
    return {
      inputs: res.getInputs()?.toJavaScript() ?? {},
      failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diff(id: string, urn: string, olds: Props, news: Props): Promise<DiffResult> {
    const req = new proto.DiffRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    const res = await this.unary<proto.DiffResponse>("diff", req);
    const C = proto.DiffResponse.DiffChanges;
    const changes = res.getChanges() === C.DIFF_SOME ? "some" : res.getChanges() === C.DIFF_NONE ? "none" : "unknown";
    return { changes, replaces: res.getReplacesList(), deleteBeforeReplace: res.getDeletebeforereplace() };
  }

  async create(urn: string, properties: Props, timeoutSeconds = 60): Promise<{ id: string; properties: Props }> {
    const req = new proto.CreateRequest();
    req.setUrn(urn);
    req.setProperties(toStruct(properties));
    req.setTimeout(timeoutSeconds);
    const res = await this.unary<proto.CreateResponse>("create", req);
    return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {} };
  }

  async read(id: string, urn: string, properties: Props, inputs?: Props): Promise<ReadResult> {
    const req = new proto.ReadRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setProperties(toStruct(properties));
    if (inputs) req.setInputs(toStruct(inputs));
    const res = await this.unary<proto.ReadResponse>("read", req);
    const ins = res.getInputs()?.toJavaScript();
    return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {}, ...(ins ? { inputs: ins } : {}) };
  }

  async update(id: string, urn: string, olds: Props, news: Props, timeoutSeconds = 60): Promise<{ properties: Props }> {
    const req = new proto.UpdateRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    req.setTimeout(timeoutSeconds);
    const res = await this.unary<proto.UpdateResponse>("update", req);
    return { properties: res.getProperties()?.toJavaScript() ?? {} };
  }

  async delete(id: string, urn: string, properties: Props, timeoutSeconds = 60): Promise<void> {
    const req = new proto.DeleteRequest();
    req.setId(id);
    req.setUrn(urn);
    req.setProperties(toStruct(properties));
    req.setTimeout(timeoutSeconds);
    await this.unary("delete", req);
  }

  /** Closes the client and kills the plugin (SIGKILL after 2 s if SIGTERM is not enough). */
  async close(): Promise<void> {
    this.client.close();
    if (!this.running) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 2000);
    await exited;
    clearTimeout(timer);
  }

  private unary<T>(method: string, req: unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const fn = (this.client as unknown as Record<string, (r: unknown, cb: (e: grpc.ServiceError | null, v: T) => void) => void>)[method];
      fn.call(this.client, req, (err, value) => {
        if (err) reject(Object.assign(new Error(`${method}: ${err.details || err.message}`), { code: err.code, details: err.details }));
        else resolve(value);
      });
    });
  }
}

/** The engine's URN for a resource of this project. */
export function urnOf(type: string, name: string, stack = "test"): string {
  return `urn:pulumi:${stack}::stackwarden::${type}::${name}`;
}

/**
 * One dynamic resource driven through a plugin: adds the serialized provider to every property
 * bag it sends, and drops it from what comes back, so tests compare only the provider's own values.
 */
export class DynamicResourceDriver {
  readonly urn: string;
  constructor(
    readonly plugin: ProviderPlugin,
    readonly providerText: string,
    readonly type: string,
    readonly name: string,
  ) {
    this.urn = urnOf(type, name);
  }

  private withProvider(p: Props): Props {
    return { ...p, [PROVIDER_KEY]: this.providerText };
  }

  async check(news: Props, olds: Props = {}): Promise<CheckResult> {
    const r = await this.plugin.check(this.urn, Object.keys(olds).length ? this.withProvider(olds) : {}, this.withProvider(news));
    return { inputs: withoutProvider(r.inputs), failures: r.failures };
  }
  diff(id: string, olds: Props, news: Props): Promise<DiffResult> {
    return this.plugin.diff(id, this.urn, this.withProvider(olds), this.withProvider(news));
  }
  async create(inputs: Props): Promise<{ id: string; properties: Props }> {
    const r = await this.plugin.create(this.urn, this.withProvider(inputs));
    return { id: r.id, properties: withoutProvider(r.properties) };
  }
  /** Reads by id and state; with `properties` empty this is a `.get` (the engine only knows the id). */
  async read(id: string, properties: Props = {}, inputs?: Props): Promise<ReadResult> {
    const r = await this.plugin.read(id, this.urn, this.withProvider(properties), inputs && this.withProvider(inputs));
    return { id: r.id, properties: withoutProvider(r.properties), ...(r.inputs ? { inputs: withoutProvider(r.inputs) } : {}) };
  }
  async update(id: string, olds: Props, news: Props): Promise<{ properties: Props }> {
    const r = await this.plugin.update(id, this.urn, this.withProvider(olds), this.withProvider(news));
    return { properties: withoutProvider(r.properties) };
  }
  delete(id: string, properties: Props): Promise<void> {
    return this.plugin.delete(id, this.urn, this.withProvider(properties));
  }
}

function withoutProvider(p: Props): Props {
  const { [PROVIDER_KEY]: _p, ...rest } = p;
  return rest;
}

/** A Struct from plain values; `undefined` members are dropped, as the engine's serializer does. */
function toStruct(p: Props): Struct {
  return Struct.fromJavaScript(JSON.parse(JSON.stringify(p)) as Record<string, never>);
}
