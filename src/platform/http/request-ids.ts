/**
 * The headers that carry a call's ids, as the service's convention names them. `src/platform/http`
 * knows no such names: a caller supplies them (the ARM layer passes Azure's `x-ms-*` ones, see
 * src/platform/arm/azure-request-ids.ts), in the way core-rest-pipeline's setClientRequestIdPolicy
 * takes its header name. A transport given none sends no id and reads none.
 */
export interface RequestIdHeaders {
  /** The header the transport puts a fresh id in on every call (the same id on each retry of it). */
  readonly client?: string;
  /** Headers of an answer that carry the service's id for the call; the first one present wins. */
  readonly response?: readonly string[];
}

/** A request id as read from an answer, with the header that carried it (errors name the header). */
export interface ReadRequestId {
  header: string;
  value: string;
}

/** The service's id for a call: the first of `names` present in the answer's headers (names in lower case, as Node gives headers). */
export function readRequestId(
  headers: Record<string, string | string[] | undefined>,
  names: readonly string[] | undefined,
): ReadRequestId | undefined {
  if (!names) return undefined;
  for (const header of names) {
    const v = headers[header];
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined) return { header, value };
  }
  return undefined;
}

/** The header names, lower-cased once (Node delivers response headers in lower case). */
export function normalizeRequestIdHeaders(ids: RequestIdHeaders | undefined): RequestIdHeaders {
  if (!ids) return {};
  return { client: ids.client?.toLowerCase(), response: ids.response?.map((n) => n.toLowerCase()) };
}

/** Every header name of the convention: they are printed in errors and logs, so they are safe to print. */
export function requestIdHeaderNames(ids: RequestIdHeaders): string[] {
  return [...(ids.client ? [ids.client] : []), ...(ids.response ?? [])];
}
