/** A sink for transport diagnostics. Lines given to it are already redacted. */
export interface Logger {
  debug(line: string): void;
  warn(line: string): void;
  /** `false` when debug lines are dropped, so callers can skip building them. Absent means enabled. */
  debugEnabled?: boolean;
}

export const silentLogger: Logger = { debug() {}, warn() {}, debugEnabled: false };

/** A stderr logger enabled by `STACKWARDEN_LOG=debug` (everything) or `warn` (retries and failures). */
export function loggerFromEnv(env: NodeJS.ProcessEnv = process.env): Logger {
  const level = (env.STACKWARDEN_LOG ?? "").toLowerCase();
  if (level !== "debug" && level !== "warn") return silentLogger;
  return {
    debug: level === "debug" ? (line) => process.stderr.write(`[stackwarden] ${line}\n`) : () => {},
    warn: (line) => process.stderr.write(`[stackwarden] ${line}\n`),
    debugEnabled: level === "debug",
  };
}
