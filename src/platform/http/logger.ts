/** A sink for transport diagnostics. Lines given to it are already redacted. */
export interface Logger {
  debug(line: string): void;
  warn(line: string): void;
  /** `false` when debug lines are dropped, so callers can skip building them. Absent means enabled. */
  debugEnabled?: boolean;
  /**
   * A line for a person waiting at a terminal (what is being retried, after the first failure), so
   * a slow failure is not silent. Lines with the same `key` are shown once a while. Absent: not shown.
   */
  notice?(line: string, key?: string): void;
}

export const silentLogger: Logger = { debug() {}, warn() {}, debugEnabled: false };

/** Where a logger writes: stderr, or a stand-in of its shape. */
export interface LogStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * A stderr logger enabled by `STACKWARDEN_LOG=debug` (everything) or `warn` (retries and failures).
 * Without it, a terminal still gets notices (what is retried); a pipe gets nothing.
 */
export function loggerFromEnv(env: NodeJS.ProcessEnv = process.env, stream: LogStream = process.stderr): Logger {
  const level = (env.STACKWARDEN_LOG ?? "").toLowerCase();
  if (level !== "debug" && level !== "warn") return stream.isTTY ? terminalLogger(stream) : silentLogger;
  return {
    debug: level === "debug" ? (line) => stream.write(`[stackwarden] ${line}\n`) : () => {},
    warn: (line) => stream.write(`[stackwarden] ${line}\n`),
    debugEnabled: level === "debug",
  };
}

/** How long a notice's key stays quiet after it was shown, in ms: one line per cause, not one per request. */
const NOTICE_QUIET_MS = 30_000;
const shown = new Map<string, number>();

/** Notices only, each key at most once per NOTICE_QUIET_MS across the process (many requests fail alike). */
function terminalLogger(stream: LogStream): Logger {
  return {
    debug() {},
    warn() {},
    debugEnabled: false,
    notice(line, key = line) {
      const now = Date.now();
      const last = shown.get(key);
      if (last !== undefined && now - last < NOTICE_QUIET_MS) return;
      shown.set(key, now);
      stream.write(`stackwarden: ${line}\n`);
    },
  };
}
