import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { verifyTrailText, type TrailVerdict } from "../domain/audit/audit-chain";
import type { StateStores } from "../domain/state/state-ports";
import { UsageError } from "../platform/usage-error";

/** What `audit verify` judged, and where the trail was. */
export interface AuditVerdict extends TrailVerdict {
  /** The trail's place: a file, or a URL in Blob Storage. */
  where: string;
}

/**
 * Verifies a stack's audit trail as the state store keeps it (or a trail file given by path, e.g.
 * one kept as a pipeline artifact). A missing trail is a usage error naming where it was looked for.
 */
export async function verifyAuditTrail(req: {
  state: Pick<StateStores, "audit">;
  cwd: string;
  stack?: string;
  file?: string;
  expectHead?: string;
}): Promise<AuditVerdict> {
  if (!req.stack === !req.file) throw new UsageError("which trail? give --stack NAME or --file PATH");
  const where = req.file ?? req.state.audit.where(req.stack!);
  let text: string | undefined;
  try {
    text = req.file ? readFileSync(resolve(req.cwd, req.file), "utf8") : await req.state.audit.read(req.stack!);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new UsageError(`cannot read ${where}: ${(e as Error).message}`);
  }
  if (text === undefined)
    throw new UsageError(`no audit trail at ${where}: nothing was applied to this stack from here yet, or --audit-dir points elsewhere`);
  return { where, ...verifyTrailText(text, req.expectHead) };
}
