import type { SourceLocation } from "../../platform/yaml/source-location";

/**
 * A resource exempted from some rules (or all), with why and until when: one entry of a stack's
 * `stackwarden:exemptions` (or of a rule's `exemptions` setting), where it was declared in `source`.
 * Applying it to findings is exemption-application.ts.
 */
export interface Exemption {
  resourceId: string;
  /** Rule ids; all rules when absent. */
  rules?: string[];
  reason: string;
  /** `YYYY-MM-DD`; the exemption applies through the end of that day (UTC). */
  expires?: string;
  source?: SourceLocation;
}
