import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/platform/version";
import { runCommand, type CommandResult } from "./cli-process";

// stackwarden as a user gets it: `npm pack` of this checkout, installed with npm into a directory of
// its own. The install pins every dependency at this project's lock (scripts/package/pinned-install.js)
// and runs offline: the npm cache holds every tarball since `npm ci` of this checkout filled it, so
// no registry is asked and nothing newer than what the other tests ran with is installed.

const { preparePinnedInstall } = require("../../scripts/package/pinned-install.js") as {
  preparePinnedInstall(tarball: string, dir: string): void;
};

/** What `npm pack --json` reports of a tarball. */
export interface PackedTarball {
  /** The tarball's path. */
  path: string;
  /** Its size in bytes, compressed. */
  size: number;
  /** The size of what it holds, in bytes. */
  unpackedSize: number;
  /** The paths it holds, relative to the package (`bin/stackwarden.js`, `dist/src/…`). */
  files: string[];
}

/** The environment npm runs in for these tests: offline, quiet, no audit or funding requests. */
export function npmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|STACKWARDEN_|AZURE_|PULUMI_)/i.test(k)) env[k] = v;
  return {
    ...env,
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    ...extra,
  };
}

/**
 * `npm pack` of this checkout into a new temporary directory. Its scripts are not run: the build in
 * dist/ is what the other tests run too (`npm test` builds first); `npm pack` with scripts runs
 * `prepare`, which packs a current build as it is (scripts/prepare.sh).
 */
export async function packCheckout(): Promise<PackedTarball> {
  const dest = mkdtempSync(join(tmpdir(), "stackwarden-pack-"));
  const r = await runCommand("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dest], {
    cwd: PROJECT_ROOT,
    env: npmEnv(),
    timeoutMs: 120_000,
  });
  if (r.code !== 0) throw new Error(`npm pack failed (exit ${r.code}):\n${r.output.slice(-3000)}`);
  const [packed] = JSON.parse(r.stdout) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
  return {
    path: join(dest, packed.filename),
    size: packed.size,
    unpackedSize: packed.unpackedSize,
    files: packed.files.map((f) => f.path),
  };
}

/** An install of the tarball into `dir`, and how long npm took. */
export interface InstalledPackage {
  /** The project directory the package was installed into. */
  dir: string;
  /** `node_modules/stackwarden` of it. */
  packageDir: string;
  /** Its `node_modules/.bin/stackwarden`. */
  bin: string;
  installMs: number;
  install: CommandResult;
}

/** `npm install <tarball>` in `dir` (created when missing), offline, with the pinned lock beside it. */
export async function installTarball(
  tarball: string,
  dir: string = mkdtempSync(join(tmpdir(), "stackwarden-user-")),
): Promise<InstalledPackage> {
  mkdirSync(dir, { recursive: true });
  preparePinnedInstall(tarball, dir);
  const install = await runCommand("npm", ["install", tarball], { cwd: dir, env: npmEnv(), timeoutMs: 300_000 });
  if (install.code !== 0) throw new Error(`npm install ${tarball} failed (exit ${install.code}):\n${install.output.slice(-3000)}`);
  const packageDir = join(dir, "node_modules", "stackwarden");
  return { dir, packageDir, bin: join(dir, "node_modules", ".bin", "stackwarden"), installMs: install.ms, install };
}

/** Megabytes, one decimal, for the tests' reports. */
export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
