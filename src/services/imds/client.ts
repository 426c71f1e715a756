import { Agent } from "undici";
import { ApiError, HttpTransport, type Logger, type RetryPolicyOptions, loggerFromEnv } from "../../platform/http";
import { tokenSourceProblem } from "../../platform/http/credential-origins";
import { AZURE_REQUEST_IDS } from "../../platform/arm/azure-request-ids";
import { responseValidator } from "../../platform/schemas/swagger-schemas";
import { noteSchemaDrift } from "../../platform/schemas/schema-drift";
import {
  IMDS_API_VERSION,
  IMDS_SPEC,
  type ImdsAttestedData,
  type ImdsIdentityInfo,
  type ImdsInstance,
  type ImdsTokenResponse,
} from "./types";

/**
 * IMDS asks clients to retry 404 (not ready yet), 410 (for at least 70 s while it boots),
 * 429 and 5xx with exponential backoff.
 */
export const IMDS_RETRY: Partial<RetryPolicyOptions> = {
  retryStatuses: (s) => s === 404 || s === 410 || s === 429 || (s >= 500 && s <= 599),
  minRetryWindowMs: { 410: 70_000 },
  maxAttempts: 6,
  baseDelayMs: 400,
  maxDelayMs: 10_000,
  maxElapsedMs: 60_000,
};

/**
 * IMDS is link-local: on an Azure machine a connection is made at once. Elsewhere the address
 * often swallows the connection attempt, so a short connect timeout is what tells "no IMDS here".
 */
const IMDS_CONNECT_TIMEOUT_MS = 2_000;
let imdsAgent: Agent | undefined;

export interface ImdsClientOptions {
  /** Base URL ending in `/metadata`. Default `http://169.254.169.254/metadata`. */
  endpoint: string;
  apiVersion?: string;
  /** What chose the endpoint (`STACKWARDEN_ARM_ENDPOINT`, `STACKWARDEN_EMULATOR`, `--emulator`, `the default of …`): named when nothing answers there. */
  endpointSetting?: string;
  retry?: Partial<RetryPolicyOptions>;
  timeoutMs?: number;
  /** Connect timeout in ms. Default 2 000. */
  connectTimeoutMs?: number;
  logger?: Logger;
}

export interface TokenRequest {
  /** The audience, e.g. `https://management.azure.com/`. */
  resource: string;
  clientId?: string;
  objectId?: string;
  msiResId?: string;
}

/**
 * A typed client for the four IMDS operations. Until IMDS has answered once, a connection that
 * cannot be made is not retried: that is a machine without IMDS, and waiting out the retry
 * budget (a minute) would only delay the error. Once it has answered, IMDS's own retry advice
 * applies to everything.
 */
/** IMDS's parameters and headers that carry no secret (a nonce is public; the token is in the body). */
const IMDS_SAFE_NAMES = {
  query: ["api-version", "resource", "client_id", "object_id", "msi_res_id", "format", "nonce"],
  headers: ["metadata"],
};

export class ImdsClient {
  private readonly http: HttpTransport;
  private readonly logger: Logger;
  readonly endpoint: string;
  private answered = false;

  constructor(opts: ImdsClientOptions) {
    this.endpoint = opts.endpoint;
    this.logger = opts.logger ?? loggerFromEnv();
    this.http = new HttpTransport({
      baseUrl: opts.endpoint,
      endpointSetting: opts.endpointSetting,
      service: "imds",
      headers: { metadata: "true" },
      query: { "api-version": opts.apiVersion ?? IMDS_API_VERSION },
      safeNames: IMDS_SAFE_NAMES,
      // IMDS is an Azure service: Azure's request ids, sent and read into errors.
      requestIds: AZURE_REQUEST_IDS,
      retry: { ...IMDS_RETRY, ...opts.retry },
      timeoutMs: opts.timeoutMs ?? 10_000,
      logger: this.logger,
      dispatcher:
        opts.connectTimeoutMs === undefined
          ? (imdsAgent ??= new Agent({ connect: { timeout: IMDS_CONNECT_TIMEOUT_MS }, keepAliveTimeout: 10_000 }))
          : new Agent({ connect: { timeout: opts.connectTimeoutMs }, keepAliveTimeout: 10_000 }),
    });
  }

  /** Instances_GetMetadata: compute and network metadata of this VM. */
  instance(signal?: AbortSignal): Promise<ImdsInstance> {
    return this.get("Instances_GetMetadata", "/instance", {}, signal);
  }

  /** Attested_GetDocument: the signed document, with an optional nonce (up to 32 alphanumerics). */
  attestedDocument(nonce?: string, signal?: AbortSignal): Promise<ImdsAttestedData> {
    return this.get("Attested_GetDocument", "/attested/document", { nonce }, signal);
  }

  /** Identity_GetInfo: the tenant of the VM's identity. */
  identityInfo(signal?: AbortSignal): Promise<ImdsIdentityInfo> {
    return this.get("Identity_GetInfo", "/identity/info", {}, signal);
  }

  /**
   * Identity_GetToken: an access token for a resource, for the system or a user-assigned identity.
   * Refused (before any request) from an http endpoint that is neither loopback nor link-local:
   * the answer is a token, which must not cross a network in clear text.
   */
  token(req: TokenRequest, signal?: AbortSignal): Promise<ImdsTokenResponse> {
    const insecure = tokenSourceProblem(this.endpoint);
    if (insecure) {
      return Promise.reject(
        new ApiError({
          operation: "Identity_GetToken",
          status: 0,
          code: "InsecureConnection",
          message: insecure,
          method: "GET",
          url: this.endpoint,
        }),
      );
    }
    return this.get(
      "Identity_GetToken",
      "/identity/oauth2/token",
      {
        resource: req.resource,
        client_id: req.clientId,
        object_id: req.objectId,
        msi_res_id: req.msiResId,
      },
      signal,
    );
  }

  private async get<T>(operation: string, path: string, query: Record<string, string | undefined>, signal?: AbortSignal): Promise<T> {
    let body: T;
    try {
      body = await this.http.json<T>({
        operation,
        method: "GET",
        path,
        query,
        signal,
        retry: this.answered ? undefined : { retryUnreachable: false },
      });
    } catch (e) {
      if (e instanceof ApiError && e.status > 0) this.answered = true;
      throw e;
    }
    this.answered = true;
    noteSchemaDrift(operation, validatorFor(operation)(body), this.logger);
    return body;
  }
}

const validators = new Map<string, ReturnType<typeof responseValidator>>();
function validatorFor(operation: string) {
  let v = validators.get(operation);
  if (!v) {
    v = responseValidator(IMDS_SPEC, operation);
    validators.set(operation, v);
  }
  return v;
}
