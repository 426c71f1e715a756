import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { SettingsError } from "./endpoints";

/** `STACKWARDEN_SCAN_CACHE`: `on` (the default) or `off`. */
export const SCAN_CACHE_VAR = "STACKWARDEN_SCAN_CACHE";
/** `STACKWARDEN_SCAN_CACHE_MAX_BYTES`: the cache's size bound (bytes, or with a K, M or G suffix: powers of 1024). */
export const SCAN_CACHE_MAX_BYTES_VAR = "STACKWARDEN_SCAN_CACHE_MAX_BYTES";
/** `STACKWARDEN_CACHE_DIR`: the root of stackwarden's caches (scripts/pulumi-install.sh keeps the Pulumi CLI there too). */
export const CACHE_DIR_VAR = "STACKWARDEN_CACHE_DIR";

/** The default size bound: 64 MiB (an entry is about 1 KB; more with many matched strings). */
export const DEFAULT_SCAN_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** Where and whether scan results are kept between runs. */
export interface ScanCacheSettings {
  enabled: boolean;
  /** `$STACKWARDEN_CACHE_DIR/scans`, default `${XDG_CACHE_HOME:-~/.cache}/stackwarden/scans`. */
  dir: string;
  /** Entries are evicted, least recently used first, once the directory holds more than this. */
  maxBytes: number;
}

const ON = new Set(["on", "1", "true", "yes"]);
const OFF = new Set(["off", "0", "false", "no"]);

/**
 * Reads the scan cache's settings from the environment (defaults: on, 64 MiB, under the user's
 * cache directory). A value that cannot be read is a SettingsError naming its variable.
 */
export function scanCacheSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ScanCacheSettings {
  const raw = env[SCAN_CACHE_VAR]?.trim().toLowerCase() ?? "";
  if (raw !== "" && !ON.has(raw) && !OFF.has(raw)) {
    throw new SettingsError(`${SCAN_CACHE_VAR}: "${env[SCAN_CACHE_VAR]}" is neither on nor off`);
  }
  return {
    enabled: !OFF.has(raw),
    dir: scanCacheDir(env),
    maxBytes: parseByteSize(env[SCAN_CACHE_MAX_BYTES_VAR], SCAN_CACHE_MAX_BYTES_VAR),
  };
}

function scanCacheDir(env: NodeJS.ProcessEnv): string {
  const root = env[CACHE_DIR_VAR]?.trim();
  if (root) return join(resolve(root), "scans");
  // As the XDG base directory specification says: a relative XDG_CACHE_HOME is to be ignored.
  const xdg = env.XDG_CACHE_HOME?.trim();
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME?.trim() || homedir(), ".cache");
  return join(base, "stackwarden", "scans");
}

const UNITS: Record<string, number> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** `4096`, `512K`, `64M`, `1G` (also `64MiB`, `64MB`: powers of 1024 either way) to bytes; unset is the default. */
export function parseByteSize(value: string | undefined, name: string): number {
  const raw = value?.trim() ?? "";
  if (raw === "") return DEFAULT_SCAN_CACHE_MAX_BYTES;
  const m = /^(\d+)\s*([kmg]?)(?:i?b)?$/i.exec(raw);
  const bytes = m ? Number(m[1]) * UNITS[m[2].toLowerCase()] : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) {
    throw new SettingsError(`${name}: "${raw}" is not a size; give bytes or a number with K, M or G (e.g. 64M)`);
  }
  return bytes;
}
