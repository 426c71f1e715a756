import { CallFailure } from "../../platform/errors/call-failure";

/** A read of the inventory that failed: what was asked for, and the API's answer. */
export interface InventoryError {
  /** What was being read, in words: `jobs of rg-ml/ws-vision/exp-1`, `transparentDataEncryption of rg/server/db`. */
  resource: string;
  /** The ARM id of what was read (a resource, or the collection a list reads). */
  id?: string;
  /** The spec's operation that failed. */
  operation?: string;
  /** The HTTP status, or 0 when no answer came (no connection, retries exhausted). */
  status: number;
  code: string;
  message: string;
  /** `file:line:column` of the stack-file entry that asked for the read, when one did. */
  location?: string;
}

/** Something odd in what was read (an item without a usable id …): it is kept, and said once. */
export interface InventoryWarning {
  resource: string;
  id?: string;
  message: string;
}

/**
 * Turns a failed read into an inventory error, so the rest of the inventory goes on. Only API
 * failures are: anything else (a bug, a cancellation of the whole inventory) is rethrown.
 */
export function inventoryError(resource: string, id: string | undefined, e: unknown): InventoryError {
  if (!(e instanceof CallFailure) || e.code === "RequestAborted") throw e;
  return { resource, ...(id ? { id } : {}), operation: e.operation, status: e.status, code: e.code, message: e.detail };
}
