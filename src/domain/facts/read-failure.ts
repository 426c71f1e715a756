import type { FactReads } from "./fact-reads";

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

/** Reads; a refused or missing read (403, 404) resolves with its failure (as the port classifies it), any other error is thrown. */
export async function readOrFailure<T>(reads: Pick<FactReads, "failureOf">, read: () => Promise<T>): Promise<ReadOrFailure<T>> {
  try {
    return { value: await read() };
  } catch (e) {
    const readError = readFailureOf(reads, e);
    if (!readError) throw e;
    return { readError };
  }
}

/** Statuses that say "this resource cannot be read": reported as facts. Any other failure fails the run. */
const REPORTED = new Set([403, 404]);

/** The failure a refused or missing read becomes; undefined for any other error (the caller rethrows it). */
export function readFailureOf(reads: Pick<FactReads, "failureOf">, e: unknown): ReadFailure | undefined {
  const failed = reads.failureOf(e);
  if (!failed || !REPORTED.has(failed.status)) return undefined;
  return {
    status: failed.status,
    code: failed.code,
    message: withoutPrincipal(failed.message),
    operation: failed.operation,
    ...(failed.requestId ? { requestId: failed.requestId } : {}),
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
