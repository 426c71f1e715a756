import { resolve } from "node:path";
import type { Command } from "commander";
import { type StackConfig } from "../../domain/stack/stack-config";
import { loadStackFile } from "../../usecases/stack-file";
import { DEFAULT_STACKS_DIR, stackFilePath } from "../../platform/files/stack-files";
import { UsageError } from "./cli-error";
import type { CommandIO } from "./command-io";

export interface StackFlags {
  stack?: string;
  config?: string;
  stacksDir?: string;
}

/** The `--stacks-dir DIR` option's text, the same on every command that has it. */
export const STACKS_DIR_OPTION = [
  "--stacks-dir <dir>",
  `folder of the stack files, relative to the working directory (default ${DEFAULT_STACKS_DIR})`,
] as const;

/** Adds `--stack NAME`, `--stacks-dir DIR` and `--config FILE` to a command. */
export function withStackOptions(cmd: Command): Command {
  return cmd
    .option("--stack <name>", "stack name: reads stacks/Pulumi.<name>.yaml of the working directory (or of --stacks-dir)")
    .option(...STACKS_DIR_OPTION)
    .option("--config <file>", "path of a stack file (instead of --stack)");
}

/** The path of the stack file the flags name (`--config FILE`, or `--stack NAME` in the working directory's or `--stacks-dir`'s folder). */
export function stackPathFromFlags(flags: StackFlags, io: CommandIO): string {
  if (flags.stack && flags.config) throw new UsageError("give either --stack or --config, not both");
  if (!flags.stack && !flags.config) throw new UsageError("which stack? give --stack NAME (stacks/Pulumi.NAME.yaml) or --config FILE");
  if (flags.config && flags.stacksDir !== undefined) throw new UsageError("--stacks-dir goes with --stack NAME, not with --config FILE");
  return flags.config ? resolve(io.cwd, flags.config) : stackFilePath(flags.stack!, io.cwd, flags.stacksDir);
}

/** Loads the stack the flags name; fails before any API call when the file is bad. */
export function loadStackFromFlags(flags: StackFlags, io: CommandIO): { stack: StackConfig; name: string } {
  const path = stackPathFromFlags(flags, io);
  const stack = loadStackFile(path, io.env, io.cwd);
  const name = flags.stack ?? /Pulumi\.([^/\\]+)\.yaml$/.exec(path)?.[1] ?? path;
  return { stack, name };
}
