import { execFile } from "node:child_process";
import { StackwardenError } from "../errors/stackwarden-error";

/** A git command that failed; the message has git's own last line (`SW_GIT_FAILED`). */
export class GitError extends StackwardenError {
  constructor(message: string) {
    super("SW_GIT_FAILED", message);
    this.name = "GitError";
  }
}

function git(dir: string, args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-C", dir, ...args],
      { encoding: "utf8", signal, env: { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" }, timeout: 120_000 },
      (err, stdout, stderr) => {
        if (err) {
          const why = `${stderr}`.trim().split("\n").filter(Boolean).pop() ?? err.message;
          return reject(new GitError(`git ${args[0]} in ${dir} failed: ${why}`));
        }
        resolve(stdout.trim());
      },
    );
  });
}

/** The commit checked out in `dir`, or null when it is not in a git work tree (or git is missing). */
export async function headCommit(dir: string): Promise<string | null> {
  try {
    return await git(dir, ["rev-parse", "HEAD"]);
  } catch {
    return null;
  }
}

/** The branch checked out in `dir` (`main`), or undefined on a detached HEAD. */
export async function currentBranch(dir: string): Promise<string | undefined> {
  const b = await git(dir, ["rev-parse", "--abbrev-ref", "HEAD"]);
  return b === "HEAD" ? undefined : b;
}

/**
 * Fetches `branch` from `remote` and fast-forwards the checkout to it; resolves to the commit now
 * checked out. A checkout that cannot fast-forward (local commits, conflicting local edits) is an
 * error: the reconciler never discards work in its checkout.
 */
export async function fetchFastForward(dir: string, remote: string, branch: string, signal?: AbortSignal): Promise<string> {
  await git(dir, ["fetch", "--quiet", remote, branch], signal);
  await git(dir, ["merge", "--ff-only", "--quiet", "FETCH_HEAD"], signal);
  return git(dir, ["rev-parse", "HEAD"], signal);
}

/** The subject line of a commit in `dir`, or null when git cannot say. */
export async function commitSubject(dir: string, commit: string): Promise<string | null> {
  try {
    return await git(dir, ["log", "-1", "--format=%s", commit]);
  } catch {
    return null;
  }
}
