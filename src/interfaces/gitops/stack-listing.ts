import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, sep } from "node:path";
import { isMap, isNode, isScalar, LineCounter, parseDocument } from "yaml";
import type { StackEngine } from "../../domain/stack/stack-config";

/** A stack file found in a project: what a pipeline matrix needs to run it. */
export interface ListedStack {
  /** The stack name: `NAME` of `stacks/Pulumi.NAME.yaml`. */
  stack: string;
  /** The stack file, relative to the project directory, with `/` separators. */
  file: string;
  /** `stackwarden:engine` as written, or native when absent or unreadable (the stack's own job reports a bad file). */
  engine: StackEngine;
  /**
   * Why the file could not be read for its engine (broken YAML, no `config:` mapping, an engine that
   * is neither native nor pulumi), `file:line:column: …`; the stack is listed as native all the same,
   * so its job runs and its plan or check names the problem. Absent for a readable file.
   */
  problem?: string;
}

/** The folder of stack files in a project (`stackConfigDir` of the contract's Pulumi.yaml). */
export const STACKS_DIR = "stacks";

/** Matches a stack file name and captures the stack name (the characters `--stack` accepts). */
const STACK_FILE = /^Pulumi\.([A-Za-z0-9_.-]+)\.yaml$/;

/** The stack name of a file name (`Pulumi.dev.yaml` gives `dev`), or undefined when it is not a stack file. */
export function stackNameOf(fileName: string): string | undefined {
  return STACK_FILE.exec(fileName)?.[1];
}

/** A stacks folder as project-relative paths show it: `/`-separated, no leading `./` or trailing `/`. */
export function stacksDirShown(stacksDir: string): string {
  return posix.normalize(stacksDir.split(sep).join("/")).replace(/\/+$/, "") || ".";
}

/**
 * Every `<stacksDir>/Pulumi.<name>.yaml` of the project (`stacks/` unless `--stacks-dir` names
 * another folder, relative to the project), sorted by name. Files are not validated here:
 * listing must not stop at a stack whose file is broken; the stack's own plan or check reports it
 * with file, line and column. Throws when the project has no such folder.
 */
export function listStacks(projectDir: string, stacksDir: string = STACKS_DIR): ListedStack[] {
  const shownDir = stacksDirShown(stacksDir);
  const dir = join(projectDir, stacksDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(
      code === "ENOENT"
        ? `no ${shownDir}/ folder in ${projectDir}: run in the project directory (where your stacks/ folder is), name the folder with --stacks-dir, or start one with \`stackwarden init\``
        : `cannot read ${dir} (${code})`,
      { cause: e },
    );
  }
  const shown = (f: string) => (shownDir === "." ? f : `${shownDir}/${f}`);
  return names
    .map((f) => ({ f, stack: stackNameOf(f) }))
    .filter((x): x is { f: string; stack: string } => !!x.stack && statSync(join(dir, x.f)).isFile())
    .map(({ f, stack }) => ({ stack, file: shown(f), ...engineOf(join(dir, f), shown(f)) }))
    .sort((a, b) => (a.stack < b.stack ? -1 : a.stack > b.stack ? 1 : 0));
}

/**
 * `stackwarden:engine` of a stack file: `pulumi` when it says so, else native; and, for a file that
 * cannot be read for it, the problem at its line (the file is not validated further here).
 */
function engineOf(path: string, shown: string): { engine: StackEngine; problem?: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return { engine: "native", problem: `${shown}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number | undefined) => {
    const p = lines.linePos(offset ?? 0);
    return `${shown}:${p.line}:${p.col}`;
  };
  const syntax = doc.errors[0];
  if (syntax) return { engine: "native", problem: `${at(syntax.pos[0])}: invalid YAML: ${syntax.message.split("\n")[0]}` };
  const config = doc.get("config", true);
  if (!isMap(config)) return { engine: "native", problem: `${at(isNode(config) ? config.range?.[0] : 0)}: no \`config:\` mapping` };
  const engine = config.get("stackwarden:engine", true);
  if (engine === undefined) return { engine: "native" };
  const value = isScalar(engine) ? engine.value : undefined;
  if (value === "pulumi" || value === "native") return { engine: value };
  return { engine: "native", problem: `${at(isNode(engine) ? engine.range?.[0] : 0)}: stackwarden:engine must be native or pulumi` };
}
