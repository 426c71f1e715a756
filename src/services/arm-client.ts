import type { TokenCredential } from "../auth/token-credential";
import { ARM_SCOPE } from "../auth/scopes";
import { HttpTransport, type Logger, type RetryPolicyOptions, loggerFromEnv } from "../http";
import type { Dispatcher } from "undici";
import type { NamingStyle } from "./provider-namespace";

/** What every Azure Resource Manager client is built from. */
export interface ArmClientOptions {
  /** `https://management.azure.com` or the emulator's base URL. */
  endpoint: string;
  credential: TokenCredential;
  naming?: NamingStyle;
  retry?: Partial<RetryPolicyOptions>;
  timeoutMs?: number;
  logger?: Logger;
  dispatcher?: Dispatcher;
}

/** A transport for one ARM api-version, authenticated with a bearer token for ARM's scope. */
export function armTransport(opts: ArmClientOptions, apiVersion: string): HttpTransport {
  return new HttpTransport({
    baseUrl: opts.endpoint,
    auth: { kind: "bearer", credential: opts.credential, scopes: [ARM_SCOPE] },
    query: { "api-version": apiVersion },
    retry: opts.retry,
    timeoutMs: opts.timeoutMs,
    logger: opts.logger ?? loggerFromEnv(),
    dispatcher: opts.dispatcher,
  });
}

/** Encodes one path segment of an ARM id. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
