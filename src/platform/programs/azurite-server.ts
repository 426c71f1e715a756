import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { StackwardenError } from "../errors/stackwarden-error";
import { PROJECT_ROOT } from "../version";

/** Azurite's documented well-known account and key (devstoreaccount1): not a secret, the same on every machine. */
export const AZURITE_ACCOUNT = "devstoreaccount1";
export const AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/** A running Azurite Blob service. */
export interface AzuriteServer {
  /** The account's blob endpoint (path style): `http://127.0.0.1:PORT/devstoreaccount1`. */
  accountUrl: string;
  port: number;
  /** A state URL for `container` (and an optional prefix) on it. */
  stateUrl(container: string, prefix?: string): string;
  /** Stops it (SIGTERM, then SIGKILL after 5 s); resolves once it has exited. */
  stop(): Promise<void>;
  child: ChildProcess;
}

/**
 * Starts Microsoft's Azure Storage emulator (the `azurite` package's Blob service) as a child
 * process on 127.0.0.1: in memory, or persisted under `location`, telemetry off, on `port` (0: a free
 * one). Resolves once it listens, with the address it printed.
 */
export async function startAzurite(opts: { port?: number; location?: string; host?: string } = {}): Promise<AzuriteServer> {
  let main: string;
  try {
    main = join(dirname(require.resolve("azurite/package.json")), "dist/src/blob/main.js");
  } catch {
    throw new StackwardenError("SW_TOOL_MISSING", azuriteMissingMessage());
  }
  const host = opts.host ?? "127.0.0.1";
  const args = [
    main,
    "--blobHost",
    host,
    "--blobPort",
    String(opts.port ?? 0),
    "--disableTelemetry",
    "--skipApiVersionCheck",
    "--silent",
    ...(opts.location ? ["--location", opts.location] : ["--inMemoryPersistence"]),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], cwd: opts.location ?? undefined });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StackwardenError("SW_TOOL_MISSING", "Azurite did not start within 30 s")), 30_000);
    lines.on("line", (line) => {
      const m = /successfully listens on (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(
        new StackwardenError("SW_TOOL_MISSING", `Azurite exited (${code}) before it listened: ${stderr.trim().split("\n").pop() ?? ""}`),
      );
    });
  });
  const port = Number(new URL(url).port);
  const accountUrl = `http://${host}:${port}/${AZURITE_ACCOUNT}`;
  return {
    accountUrl,
    port,
    child,
    stateUrl: (container, prefix) => `${accountUrl}/${container}${prefix ? `/${prefix}` : ""}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/**
 * What to do when Azurite cannot be found. It is a devDependency (it and its own dependencies, a
 * database layer among them, serve only `emulator --storage` and the tests), so an installed
 * stackwarden does not bring it: it is found beside stackwarden when the user's project installs it.
 */
function azuriteMissingMessage(): string {
  let version: string | undefined;
  try {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { devDependencies?: Record<string, string> };
    version = pkg.devDependencies?.azurite;
  } catch {
    /* the message below still says what to install */
  }
  return `Azurite is not installed (the azurite package, which stackwarden does not install for you): run \`npm install --save-dev azurite${version ? `@${version}` : ""}\` in your project, or npm ci in a clone of stackwarden`;
}
