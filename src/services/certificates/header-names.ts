import type { NamingStyle } from "../../platform/settings/naming-style";

/** The names of the two key headers a request carries. */
export interface KeyHeaderNames {
  apiKey: string;
  clientId: string;
}

/**
 * The published specs name the headers `X-APISETU-APIKEY` and `X-APISETU-CLIENTID` (the real names,
 * sent by default); the product description calls the key `X-GATEWAY-APIKEY`, and
 * `STACKWARDEN_PROVIDER_NAMES=described` sends that spelling (with `X-GATEWAY-CLIENTID`) for
 * gateways that use it. The emulator accepts both.
 */
export function keyHeaderNames(style: NamingStyle = "real"): KeyHeaderNames {
  return style === "described"
    ? { apiKey: "X-GATEWAY-APIKEY", clientId: "X-GATEWAY-CLIENTID" }
    : { apiKey: "X-APISETU-APIKEY", clientId: "X-APISETU-CLIENTID" };
}

/** Both spellings, for the emulator. */
export const ALL_KEY_HEADER_NAMES: readonly KeyHeaderNames[] = [keyHeaderNames("real"), keyHeaderNames("described")];
