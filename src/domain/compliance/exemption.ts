import type { SourceLocation } from "../../platform/yaml/source-location";

/** A resource exempted from some rules (or all), with why and until when. */
export interface Exemption {
  resourceId: string;
  /** Rule ids; all rules when absent. */
  rules?: string[];
  reason: string;
  /** `YYYY-MM-DD`; the exemption applies through the end of that day (UTC). */
  expires?: string;
  source?: SourceLocation;
}
