import { InvalidArgumentError, type Command } from "commander";
import { parseDuration } from "../../platform/duration";
import { withStateUrlOption } from "./state-stores";

/** Flags of commands that apply: the stack lock and the audit trail. */
export interface OperationFlags {
  lockTimeout: number;
  lockDir?: string;
  auditDir?: string;
  stateUrl?: string;
}

/** A commander parser for a duration (`500ms`, `30s`, `5m`, `1h`), in ms. */
export function durationOption(value: string): number {
  try {
    return parseDuration(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

/** Adds `--lock-timeout D`, `--lock-dir DIR`, `--audit-dir DIR` and `--state-url URL`. */
export function withOperationOptions(cmd: Command): Command {
  return withStateUrlOption(cmd)
    .option(
      "--lock-timeout <duration>",
      "wait this long for the stack's lock when another apply holds it (e.g. 30s, 5m); default: fail at once",
      durationOption,
      0,
    )
    .option(
      "--lock-dir <dir>",
      "directory of the per-stack locks; share it to lock across machines (env STACKWARDEN_LOCK_DIR; default .stackwarden/locks)",
    )
    .option("--audit-dir <dir>", "directory of the per-stack audit trails (env STACKWARDEN_AUDIT_DIR; default .stackwarden/audit)");
}
