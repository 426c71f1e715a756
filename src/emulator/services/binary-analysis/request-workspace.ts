import { mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";

/** A temporary directory for one request's files; `dispose` removes it (idempotent). */
export interface Workspace {
  dir: string;
  dispose(): Promise<void>;
}

/**
 * Creates a request's temporary directory under `root`. The caller disposes it when the request
 * ends: after the reply, on error, and on client abort (every path through the handler).
 */
export async function openWorkspace(root: string): Promise<Workspace> {
  mkdirSync(root, { recursive: true });
  const dir = await mkdtemp(join(root, "req-"));
  let disposed: Promise<void> | undefined;
  return {
    dir,
    dispose: () => (disposed ??= rm(dir, { recursive: true, force: true, maxRetries: 3 })),
  };
}
