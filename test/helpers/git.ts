import { execFileSync } from "node:child_process";

/** A fixed author and committer: commits in test repositories need no git config on the machine. */
const TEST_IDENTITY = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};

/** Runs `git args…` in `cwd` as the test identity; returns its stdout trimmed, throws with its stderr on failure. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...TEST_IDENTITY },
  }).trim();
}
