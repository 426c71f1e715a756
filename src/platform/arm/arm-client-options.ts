import type { Dispatcher } from "undici";
import type { Logger, RetryPolicyOptions } from "../http";
import type { TokenCredential } from "../http/token-credential";
import type { ArmPacer } from "./arm-pacer";
import type { NamingStyle } from "./provider-namespace";

/**
 * How much of each response is checked against the spec (the checks only ever warn):
 * - `all`: every item;
 * - `sample` (default): every item of the first 100 per operation, then one in 20. Drift is
 *   systemic (a new field, a new enum value), so a sample finds it, while 10 000 jobs cost ~600
 *   checks instead of 10 000 (a check costs about as much as parsing the item: date-time formats);
 * - `off`: none.
 * A body that is not an object is refused whatever this says; a list item that is not an object is
 * dropped (with a warning); a resource without a usable id is kept as it is (with a warning).
 */
export type ResponseValidation = "all" | "sample" | "off";

/** What every Azure Resource Manager client is built from. */
export interface ArmClientOptions {
  /** `https://management.azure.com` or the emulator's base URL. */
  endpoint: string;
  credential: TokenCredential;
  naming?: NamingStyle;
  /** What chose the endpoint (`STACKWARDEN_ARM_ENDPOINT`, `STACKWARDEN_EMULATOR`, `--emulator`, `the default of …`): named when nothing answers there. */
  endpointSetting?: string;
  retry?: Partial<RetryPolicyOptions>;
  timeoutMs?: number;
  logger?: Logger;
  dispatcher?: Dispatcher;
  /** Default `sample`. */
  validation?: ResponseValidation;
  /**
   * Pacing to Resource Manager's throttling budget (arm-pacer.ts): default on, with one pacer per
   * credential and endpoint shared by every client; `false` sends at once and only backs off on 429.
   */
  pacing?: boolean | ArmPacer;
}
