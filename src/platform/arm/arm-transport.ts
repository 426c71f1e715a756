import { HttpTransport, loggerFromEnv, type RequestSpec, type TransportOptions } from "../http";
import type { ArmClientOptions } from "./arm-client-options";
import { armPacerFor, armPacingStage } from "./arm-pacer";
import { armPages } from "./arm-paging";
import { ARM_SCOPE } from "./arm-scope";
import { AZURE_REQUEST_IDS } from "./azure-request-ids";

/** Resource Manager's parameters and headers that carry no secret (the request ids among them). */
export const ARM_SAFE_NAMES = {
  query: ["api-version", "$skiptoken", "$top", "$filter", "$expand"],
  headers: [
    "x-ms-request-id",
    "x-ms-client-request-id",
    "x-ms-correlation-request-id",
    "x-ms-ratelimit-remaining-subscription-reads",
    "x-ms-ratelimit-remaining-subscription-writes",
    "x-ms-ratelimit-remaining-subscription-global-reads",
    "x-ms-ratelimit-remaining-subscription-global-writes",
    "azure-asyncoperation",
  ],
};

/**
 * The transport with Resource Manager's conventions on top: Azure's request ids (sent and read),
 * ARM's safe names added to the caller's, and lists paged by `value`/`nextLink`.
 */
export class ArmTransport extends HttpTransport {
  constructor(opts: TransportOptions) {
    super({
      ...opts,
      requestIds: opts.requestIds ?? AZURE_REQUEST_IDS,
      safeNames: {
        query: [...ARM_SAFE_NAMES.query, ...(opts.safeNames?.query ?? [])],
        headers: [...ARM_SAFE_NAMES.headers, ...(opts.safeNames?.headers ?? [])],
      },
    });
  }

  /**
   * Follows ARM paging one page at a time: each step is one request and yields that page's `value`
   * (`null` reads as empty); it ends after the page without `nextLink`. A `nextLink` on another
   * origin is refused, so credentials never leave the configured endpoint.
   */
  pages<T>(spec: RequestSpec): AsyncGenerator<T[], void, undefined> {
    return armPages<T>(this, spec);
  }

  /** Follows ARM paging item by item (see `pages`). */
  async *paginate<T>(spec: RequestSpec): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages<T>(spec)) yield* page;
  }

  /** Collects every item of a paged list. */
  async list<T>(spec: RequestSpec): Promise<T[]> {
    const out: T[] = [];
    for await (const page of this.pages<T>(spec)) for (const item of page) out.push(item);
    return out;
  }
}

/** A transport for one ARM api-version, authenticated with a bearer token for ARM's scope and paced (arm-pacer.ts) unless told not to be. */
export function armTransport(opts: ArmClientOptions, apiVersion: string): ArmTransport {
  return new ArmTransport({
    baseUrl: opts.endpoint,
    endpointSetting: opts.endpointSetting,
    auth: { kind: "bearer", credential: opts.credential, scopes: [ARM_SCOPE] },
    query: { "api-version": apiVersion },
    retry: opts.retry,
    timeoutMs: opts.timeoutMs,
    logger: opts.logger ?? loggerFromEnv(),
    dispatcher: opts.dispatcher,
    stages:
      opts.pacing === false
        ? []
        : [armPacingStage(typeof opts.pacing === "object" ? opts.pacing : armPacerFor(opts.credential, originOf(opts.endpoint)))],
  });
}

/** The endpoint's origin (the pacer's key); an invalid URL is left for the transport to refuse. */
function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return endpoint;
  }
}
