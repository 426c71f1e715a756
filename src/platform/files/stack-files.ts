import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { YamlInputError } from "../yaml/yaml-input-error";
import { PROJECT_ROOT } from "../version";
import { directoryNames, pathExists, readTextFile } from "./local-files";

/**
 * Where a stack file is and its text: the file system's half of loading a stack (the domain's
 * parseStackConfig is the other, src/usecases/stack-file.ts joins them), so the domain reads no file.
 */

/** A stack file's text, and its path as errors show it. */
export interface StackFileText {
  /** Relative to the working directory when the file is under it, else as given. */
  file: string;
  text: string;
}

/** The folder of stack files when no `--stacks-dir` names another (Pulumi.yaml's `stackConfigDir`). */
export const DEFAULT_STACKS_DIR = "stacks";

/**
 * `--stack NAME` means `<stacksDir>/Pulumi.NAME.yaml` of the working directory. Without `--stacks-dir`
 * a stack not found there is looked for in stackwarden's own `stacks/` too (a clone's example stack,
 * run from a scratch directory); an installed package ships no stack file, so in a project that
 * installed stackwarden only the project's own stacks are found. A named folder is the only place looked.
 */
export function stackFilePath(stack: string, cwd: string, stacksDir?: string): string {
  if (!/^[A-Za-z0-9_.-]+$/.test(stack))
    throw new YamlInputError(`stack "${stack}"`, 0, 0, "", "a stack name may only hold letters, digits, '-', '_' and '.'");
  const own = join(resolve(cwd, stacksDir ?? DEFAULT_STACKS_DIR), `Pulumi.${stack}.yaml`);
  if (stacksDir !== undefined || pathExists(own)) return own;
  const project = join(PROJECT_ROOT, DEFAULT_STACKS_DIR, `Pulumi.${stack}.yaml`);
  return pathExists(project) ? project : own;
}

/** Reads a stack file; one that cannot be read is a YamlInputError saying why (SW_STACK_NOT_FOUND when it is not there, naming the stacks that are). */
export function readStackFile(path: string, cwd: string): StackFileText {
  const shown = isAbsolute(path) ? (relative(cwd, path).startsWith("..") ? path : relative(cwd, path)) : path;
  try {
    return { file: shown, text: readTextFile(path) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new YamlInputError(
      shown,
      0,
      0,
      "",
      code === "ENOENT"
        ? `stack file not found${availableStacksHint(dirname(path))}`
        : code === "EISDIR"
          ? "this is a directory, not a stack file"
          : code === "EACCES"
            ? "cannot read the stack file: permission denied"
            : `cannot read the stack file (${code})`,
      code === "ENOENT" ? "SW_STACK_NOT_FOUND" : "SW_IO_FAILED",
    );
  }
}

/** ` (stacks here: dev, prod)` when the missing file's directory holds other stack files. */
function availableStacksHint(dir: string): string {
  const names = (directoryNames(dir) ?? [])
    .map((f) => /^Pulumi\.([^.]+)\.yaml$/.exec(f)?.[1])
    .filter((n): n is string => !!n)
    .sort();
  return names.length ? ` (stacks here: ${names.join(", ")})` : "";
}
