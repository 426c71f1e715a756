import { ApiError } from "../../platform/http/api-error";

/**
 * A read that Resource Manager refused (403: no role grants the read) or could not answer with the
 * resource (404: it is gone, or was never there). Key custody reports it as a fact (a vault or key
 * that cannot be read is a finding that says so), never as a crash and never as a pass.
 */
export interface ReadFailure {
  /** The HTTP status; absent when no request could name the resource (a vault Resource Manager does not list). */
  status?: number;
  /** The error code (`AuthorizationFailed`, `ResourceNotFound`, `VaultNotListed` …). */
  code: string;
  /** What was answered, with the identity's principal ids left out (they identify a person or an app). */
  message: string;
  /** The spec's operation that failed, when a request was sent. */
  operation?: string;
  /** Resource Manager's id for the call, when it answered. */
  requestId?: string;
  /** When it failed (ISO 8601). */
  readAt: string;
}

/** A read that answered, or why Resource Manager refused it or found nothing (403, 404). */
export type ReadOrFailure<T> = { value: T; readError?: undefined } | { value?: undefined; readError: ReadFailure };

/** Reads; a refused or missing read (403, 404) resolves with its failure, any other error is thrown. */
export async function readOrFailure<T>(read: () => Promise<T>): Promise<ReadOrFailure<T>> {
  try {
    return { value: await read() };
  } catch (e) {
    const readError = readFailureOf(e);
    if (!readError) throw e;
    return { readError };
  }
}

/** Statuses that say "this resource cannot be read": reported as facts. Any other failure fails the run. */
const REPORTED = new Set([403, 404]);

/** The failure a refused or missing read becomes; undefined for any other error (the caller rethrows it). */
export function readFailureOf(e: unknown): ReadFailure | undefined {
  if (!(e instanceof ApiError) || !REPORTED.has(e.status)) return undefined;
  return {
    status: e.status,
    code: e.code,
    message: withoutPrincipal(e.detail),
    operation: e.operation,
    ...(e.requestId ? { requestId: e.requestId } : {}),
    readAt: new Date().toISOString(),
  };
}

/**
 * ARM's AuthorizationFailed names the caller (`The client '<id>' with object id '<oid>' …`): an
 * identity's ids are personal data when it is a person, so reports keep the sentence without them.
 */
export function withoutPrincipal(message: string): string {
  return message
    .replace(/\bclient '[^']*'/gi, "client [principal]")
    .replace(/\bobject id '[^']*'/gi, "object id [principal]")
    .replace(/\b(user|principal|application|app) id '[^']*'/gi, "$1 id [principal]");
}
