import type { FormData } from "undici";
import type { RetryPolicyOptions } from "./retry-policy";

export type HttpMethod = "GET" | "PUT" | "POST" | "DELETE" | "PATCH" | "HEAD";

/** One logical call; the transport may make several attempts for it. */
export interface RequestSpec {
  /** Logical operation name, used in errors and logs (e.g. `ServiceTierAdvisors_Get`). */
  operation: string;
  method: HttpMethod;
  /** Path relative to the transport's base URL (starting with `/`), or an absolute URL on the same origin. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** A JSON body (serialized here) ... */
  json?: unknown;
  /** ... or a raw body with its content type ... */
  body?: { data: string | Buffer | Uint8Array; contentType: string };
  /**
   * ... or a multipart/form-data body (undici sets the boundary and content type). Its parts are
   * streamed as they are sent, so a `Blob` from `fs.openAsBlob` never sits in memory whole, and a
   * retry sends the parts again from the start.
   */
  form?: FormData;
  /** Statuses treated as success. Default: 200-299. */
  okStatuses?: readonly number[];
  signal?: AbortSignal;
  /** Per-attempt timeout for headers and for body, in ms. Default: the transport's. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicyOptions>;
}

export interface ApiResponse<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  /** The service's id for the call, read from the headers the transport was told (`RequestIdHeaders.response`). */
  requestId?: string;
  /** The header `requestId` came from. */
  requestIdHeader?: string;
  /** The id the transport sent with the call, when the service names a header for it. */
  clientRequestId?: string;
  /** The header `clientRequestId` was sent in. */
  clientRequestIdHeader?: string;
  attempts: number;
}
