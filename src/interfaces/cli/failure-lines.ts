import { VAULT_NOT_LISTED } from "../../domain/facts/key-custody-reads";
import type { UnreadEntry } from "../../domain/stack/unread-entry";
import { unreadLine } from "../../domain/stack/unread-entry";
import { callFailureCode } from "../../platform/errors/call-failure-code";
import { errorLine } from "./cli-error";

// Lines for what a command could not do while it still did the rest (a database the cloud does not
// have, an artifact that could not be scanned): each carries its stable code, as every error line does.

/** `stackwarden plan: SW_RESOURCE_NOT_FOUND: stacks/Pulumi.dev.yaml:12:7: database rg/server/db: the cloud has no such database …`. */
export function unreadErrorLine(prefix: string, u: UnreadEntry): string {
  return errorLine(prefix, callFailureCode(u.status, u.code), unreadLine(u));
}

/** `stackwarden check: SW_ARTIFACT_NOT_SCANNED: artifact jobs/x.py could not be scanned: …`. */
export function scanErrorLine(prefix: string, e: { path: string; error: string }): string {
  return errorLine(prefix, "SW_ARTIFACT_NOT_SCANNED", `artifact ${e.path} could not be scanned: ${e.error}`);
}

/**
 * `inventory: error: SW_THROTTLED: stacks/Pulumi.dev.yaml:3:5: usages of eastus: HTTP 429 TooManyRequests: …`.
 * A vault Resource Manager does not list was never asked for (no status): it is not found.
 */
export function inventoryErrorLine(e: { location?: string; resource: string; status: number; code: string; message: string }): string {
  const message = `${e.location ? `${e.location}: ` : ""}${e.resource}: ${e.status ? `HTTP ${e.status} ` : ""}${e.code}: ${e.message}`;
  const code = e.status === 0 && e.code === VAULT_NOT_LISTED ? "SW_RESOURCE_NOT_FOUND" : callFailureCode(e.status, e.code);
  return errorLine("inventory: error", code, message);
}
