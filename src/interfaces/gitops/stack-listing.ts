import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { StackEngine } from "../../domain/stack/stack-config";

/** A stack file found in a project: what a pipeline matrix needs to run it. */
export interface ListedStack {
  /** The stack name: `NAME` of `stacks/Pulumi.NAME.yaml`. */
  stack: string;
  /** The stack file, relative to the project directory, with `/` separators. */
  file: string;
  /** `stackwarden:engine` as written, or native when absent or unreadable (the stack's own job reports a bad file). */
  engine: StackEngine;
}

/** The folder of stack files in a project (`stackConfigDir` of the contract's Pulumi.yaml). */
export const STACKS_DIR = "stacks";

/** Matches a stack file name and captures the stack name (the characters `--stack` accepts). */
const STACK_FILE = /^Pulumi\.([A-Za-z0-9_.-]+)\.yaml$/;

/** The stack name of a file name (`Pulumi.dev.yaml` gives `dev`), or undefined when it is not a stack file. */
export function stackNameOf(fileName: string): string | undefined {
  return STACK_FILE.exec(fileName)?.[1];
}

/**
 * Every `stacks/Pulumi.<name>.yaml` of the project, sorted by name. Files are not validated here:
 * listing must not stop at a stack whose file is broken; the stack's own plan or check reports it
 * with file, line and column. Throws when the project has no stacks folder.
 */
export function listStacks(projectDir: string): ListedStack[] {
  const dir = join(projectDir, STACKS_DIR);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(
      code === "ENOENT"
        ? `no ${STACKS_DIR}/ folder in ${projectDir}: run in the project directory (where Pulumi.yaml is)`
        : `cannot read ${dir} (${code})`,
      { cause: e },
    );
  }
  return names
    .map((f) => ({ f, stack: stackNameOf(f) }))
    .filter((x): x is { f: string; stack: string } => !!x.stack && statSync(join(dir, x.f)).isFile())
    .map(({ f, stack }) => ({ stack, file: `${STACKS_DIR}/${f}`, engine: engineOf(join(dir, f)) }))
    .sort((a, b) => (a.stack < b.stack ? -1 : a.stack > b.stack ? 1 : 0));
}

/** `stackwarden:engine` of a stack file read leniently: anything but a valid `pulumi` means native. */
function engineOf(path: string): StackEngine {
  try {
    const doc = parse(readFileSync(path, "utf8")) as { config?: Record<string, unknown> } | null;
    return doc?.config?.["stackwarden:engine"] === "pulumi" ? "pulumi" : "native";
  } catch {
    return "native";
  }
}
