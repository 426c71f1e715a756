import { execFileSync } from "node:child_process";
import { relative, resolve, sep } from "node:path";
import { STACKS_DIR, stackNameOf, stacksDirShown, type ListedStack } from "./stack-listing";

/** A stack with the files that make it changed since a git ref. */
export interface ChangedStack extends ListedStack {
  /** Project-relative paths that changed (at most MAX_NAMED_FILES): the stack file and/or files every stack depends on. Empty when there was no base commit. */
  changedFiles: string[];
  /** How many changed files affect the stack in all. */
  changedFileCount: number;
}

/** What changed in a project since a git ref. */
export interface ProjectChanges {
  /** The commit the comparison starts from (the merge base of the ref and HEAD), or undefined for "no base". */
  base?: string;
  /** Changed files inside the project, relative to it, `/`-separated, sorted. */
  files: string[];
}

/**
 * Files every stack depends on, relative to the project: a change to one of them changes every
 * stack's plan or verdict (the Pulumi program, the policy pack in policies/, the providers,
 * stackwarden's own code and dependencies). Stack files and their emulator estates are per stack,
 * so not here; so are the job scripts and signature rules a stack ships (kept in its own folder,
 * `stacks/<stack>/`): they count for the stacks whose `stackwarden:artifacts` names them.
 */
export const SHARED_INPUTS: readonly { test: (path: string) => boolean; what: string }[] = [
  { test: (p) => p === "Pulumi.yaml", what: "Pulumi.yaml" },
  { test: (p) => p === "package.json" || p === "package-lock.json", what: "package.json, package-lock.json" },
  { test: (p) => new RegExp(`^${STACKS_DIR}/[^/]+\\.ts$`).test(p), what: `${STACKS_DIR}/*.ts (the Pulumi program)` },
  { test: (p) => /^(src|policies|providers|bin)\//.test(p), what: "src/, policies/, providers/, bin/" },
];

/** Whether a project-relative path is an input of every stack. */
export function isSharedInput(path: string): boolean {
  return SHARED_INPUTS.some((s) => s.test(path));
}

/** GitHub's `before` for a push that created a branch: there is no base commit. */
export const NO_COMMIT = /^0{40}$/;

/** Runs git in a directory; errors become one line that says what to do. */
function git(cwd: string, args: string[]): string {
  try {
    return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    if (err.code === "ENOENT") throw new Error("git is not installed (or not on PATH): --changed-since needs it", { cause: e });
    const detail = (err.stderr ?? "").split("\n").find((l) => l.trim()) ?? err.message;
    throw new Error(detail.trim(), { cause: e });
  }
}

/**
 * Files changed in the project since `ref`: from the merge base of `ref` and HEAD (so a pull request
 * sees only its own changes even when its base branch moved on) to the working tree, plus untracked
 * files, so a local run also sees uncommitted edits. Renames count as a removal and an addition.
 * An all-zero ref (a push that created the branch) has no base: `base` is undefined and `files` empty.
 */
export function changesSince(projectDir: string, ref: string): ProjectChanges {
  if (NO_COMMIT.test(ref)) return { base: undefined, files: [] };
  let top: string;
  try {
    top = git(projectDir, ["rev-parse", "--show-toplevel"]).trim();
  } catch (e) {
    throw new Error(`${projectDir} is not in a git repository (${(e as Error).message}): --changed-since needs the project's git history`, {
      cause: e,
    });
  }
  try {
    git(projectDir, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  } catch {
    throw new Error(
      `unknown git ref "${ref}" in ${top}: fetch it first (in GitHub Actions, actions/checkout with fetch-depth: 0) or name an existing commit`,
    );
  }
  let base: string;
  try {
    base = git(projectDir, ["merge-base", ref, "HEAD"]).trim();
  } catch {
    throw new Error(`"${ref}" and HEAD have no common history in ${top} (a shallow clone?): fetch with fetch-depth: 0`);
  }
  const prefix = relative(top, resolve(projectDir)).split(sep).join("/");
  const tracked = git(top, ["diff", "--name-only", "--no-renames", "-z", base, "--"]).split("\0");
  const untracked = git(top, ["ls-files", "--others", "--exclude-standard", "-z"]).split("\0");
  const files = new Set<string>();
  for (const f of [...tracked, ...untracked]) {
    if (!f) continue;
    if (prefix === "") files.add(f);
    else if (f.startsWith(`${prefix}/`)) files.add(f.slice(prefix.length + 1));
  }
  return { base, files: [...files].sort() };
}

/** At most this many changed files are named per stack; the count says how many there were. */
export const MAX_NAMED_FILES = 10;

/**
 * The stacks a set of changes affects, each with the files that make it so: its own stack file, its
 * own inputs (`ownInputs`: the artifacts and rules of its `stackwarden:artifacts`), or any shared
 * input. With no base commit every stack counts as changed. Stacks whose file was removed (from
 * `stacksDir`, the listing's folder) are returned apart: removing a stack from the repository never
 * changes live state.
 */
export function stacksAffected(
  stacks: readonly ListedStack[],
  changes: ProjectChanges,
  ownInputs: (stack: ListedStack) => (path: string) => boolean = () => () => false,
  stacksDir: string = STACKS_DIR,
): { changed: ChangedStack[]; removed: string[] } {
  const shared = changes.files.filter(isSharedInput);
  const existing = new Set(stacks.map((s) => s.stack));
  const dir = stacksDirShown(stacksDir);
  const prefix = dir === "." ? "" : `${dir}/`;
  const removed = changes.files
    .filter((f) => f.startsWith(prefix) && !f.slice(prefix.length).includes("/"))
    .map((f) => stackNameOf(f.slice(prefix.length)))
    .filter((n): n is string => !!n && !existing.has(n));
  const changed = stacks.flatMap((s) => {
    if (changes.base === undefined) return [{ ...s, changedFiles: [], changedFileCount: 0 }];
    const own = ownInputs(s);
    const why = [...changes.files.filter((f) => f === s.file || (!isSharedInput(f) && own(f))), ...shared];
    return why.length ? [{ ...s, changedFiles: why.slice(0, MAX_NAMED_FILES), changedFileCount: why.length }] : [];
  });
  return { changed, removed: [...new Set(removed)].sort() };
}
