import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT, VERSION } from "../../platform/version";

/** stackwarden's GitHub repository and the ref its action and reusable workflows are used at. */
export interface StackwardenRepository {
  /** `owner/name`, from package.json's `repository`. */
  repository: string;
  /** `v<version>`: the release tag of this version. */
  ref: string;
}

/**
 * Where a user's workflows take stackwarden's action and reusable workflows from: package.json's
 * `repository` at this version's tag, so that a release's `init` and its own workflows name the same
 * files (test/pipelines/workflow-references.test.ts checks the workflows against it).
 */
export function stackwardenRepository(root: string = PROJECT_ROOT): StackwardenRepository {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { repository?: { url?: string } | string };
  const url = typeof pkg.repository === "string" ? pkg.repository : (pkg.repository?.url ?? "");
  const m = /github\.com[/:]([^/]+\/[^/]+?)(?:\.git)?$/.exec(url);
  if (!m) throw new Error(`package.json's repository (${url || "none"}) is no GitHub repository URL`);
  return { repository: m[1], ref: `v${VERSION}` };
}
