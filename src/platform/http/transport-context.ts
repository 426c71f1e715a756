import { ApiError } from "./api-error";
import type { Logger } from "./logger";
import type { OutgoingRequest } from "./pipeline";
import { scrubSecrets, scrubTokens, type Redactor } from "../redaction";
import { readRequestId, type RequestIdHeaders } from "./request-ids";
import type { RequestSpec } from "./request-spec";

/** A call's ids as responses and errors carry them, each with the header it travelled in. */
export interface CallIds {
  requestId?: string;
  requestIdHeader?: string;
  clientRequestId?: string;
  clientRequestIdHeader?: string;
}

/** What a transport's stages share: where requests go, how to redact, and the secrets seen so far. */
export class TransportContext {
  /** Every secret value this transport has put on the wire (keys, tokens), to scrub from error text. */
  readonly secrets = new Set<string>();

  constructor(
    readonly baseUrl: URL,
    readonly redactor: Redactor,
    readonly logger: Logger,
    /** The service name in request events (metrics); derived from each request when absent. */
    readonly service?: string,
    /** The headers of the service's request-id convention, lower-cased; empty when it has none. */
    readonly requestIds: RequestIdHeaders = {},
    /** What chose the base URL (a variable, a flag, a default), named when nothing answers there. */
    readonly endpointSetting?: string,
  ) {
    this.origin = baseUrl.origin;
    this.basePath = baseUrl.pathname.replace(/\/+$/, "");
  }

  readonly origin: string;
  readonly basePath: string;

  /** Text with known secrets and anything token-shaped removed. */
  scrub(text: string): string {
    return scrubTokens(scrubSecrets(text, this.secrets));
  }

  /** The redacted URL of a path on this origin. */
  url(path: string): string {
    return this.redactor.url(this.origin + path);
  }

  /** The request's URL for errors, redacted; it needs no valid path (a refused link is shown as it was given). */
  displayUrl(spec: Pick<RequestSpec, "path">): string {
    return this.redactor.url(/^https?:\/\//i.test(spec.path) ? spec.path : this.origin + this.basePath + spec.path);
  }

  /** The ids of a call: ours as sent, and the service's when its answer's headers carry one. */
  ids(clientRequestId: string | undefined, headers?: Record<string, string | string[] | undefined>): CallIds {
    const theirs = headers ? readRequestId(headers, this.requestIds.response) : undefined;
    return {
      requestId: theirs?.value,
      requestIdHeader: theirs?.header,
      clientRequestId,
      clientRequestIdHeader: clientRequestId === undefined ? undefined : this.requestIds.client,
    };
  }

  /** `Operation METHOD url`, for log lines. */
  describe(req: OutgoingRequest): string {
    return `${req.spec.operation} ${req.spec.method} ${this.url(req.path)}`;
  }

  /** An ApiError for a call that got no usable answer (status 0): cancelled, no credential, no connection. */
  failure(
    spec: RequestSpec,
    code: string,
    message: string,
    extra: { path?: string; clientRequestId?: string; attempts?: number } = {},
  ): ApiError {
    return new ApiError({
      operation: spec.operation,
      status: 0,
      code,
      message: this.scrub(message),
      method: spec.method,
      url: extra.path !== undefined ? this.url(extra.path) : this.displayUrl(spec),
      ...this.ids(extra.clientRequestId),
      attempts: extra.attempts,
    });
  }
}
