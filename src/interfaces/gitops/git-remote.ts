import { execFileSync } from "node:child_process";
import { relative, resolve, sep } from "node:path";

/** Where a project lives in git, as the Pulumi Kubernetes Operator needs it. */
export interface GitSource {
  /** The clone URL (https; credentials removed). */
  repo: string;
  branch: string;
  /** The project folder relative to the repository root, `/`-separated; `.` for the root. */
  repoDir: string;
}

function git(cwd: string, args: string[]): string | undefined {
  try {
    return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * A clone URL the operator can use without an SSH key: scp-like and ssh:// URLs become https, and
 * any user or password in the URL is dropped (a token in a remote URL must never reach a manifest).
 */
export function cloneUrl(remote: string): string {
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)(.+)$/.exec(remote);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(remote)) return `https://${scp[1]}/${scp[2]}`;
  try {
    const u = new URL(remote);
    if (u.protocol === "ssh:" || u.protocol === "git:") return `https://${u.hostname}${u.pathname}`;
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return remote;
  }
}

/** The URL without a user or password (a token in a URL must never reach a manifest); other URLs as given. */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * The git source of a project: the `origin` remote's URL, its default branch (origin/HEAD, else
 * the branch checked out), and the project's folder in the repository. Each part the caller
 * already has is kept (a given URL loses only its credentials); a part that cannot be found is an
 * error that names the flag to pass.
 */
export function gitSource(projectDir: string, given: Partial<GitSource>): GitSource {
  const top = git(projectDir, ["rev-parse", "--show-toplevel"]);
  let repo = given.repo === undefined ? undefined : withoutCredentials(given.repo);
  if (!repo) {
    const remote = top && git(projectDir, ["remote", "get-url", "origin"]);
    if (!remote)
      throw new Error(
        top
          ? `the repository at ${top} has no remote "origin": pass --repo URL (the repository the operator clones)`
          : `${projectDir} is not in a git repository: pass --repo URL and --branch NAME`,
      );
    repo = cloneUrl(remote);
  }
  let branch = given.branch;
  if (!branch) {
    const head = top && git(projectDir, ["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"]);
    branch = head?.replace(/^origin\//, "") ?? (top && git(projectDir, ["branch", "--show-current"]));
    if (!branch)
      throw new Error("cannot tell which branch the operator should follow (no origin/HEAD, no branch checked out): pass --branch NAME");
  }
  let repoDir = given.repoDir;
  if (!repoDir) repoDir = top ? relative(top, resolve(projectDir)).split(sep).join("/") || "." : ".";
  return { repo, branch, repoDir };
}
