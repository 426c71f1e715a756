import { ApiError } from "../../platform/http/api-error";

/** Whether an error says the resource (or its parent) does not exist. */
export function isNotFound(e: unknown): boolean {
  return e instanceof ApiError && e.status === 404;
}
