import { Type } from "../../kit/seed-types";

/**
 * The formats the `sql:` seed's keys share, written as patterns so the seed validator needs no
 * format plug-in. Each takes the key's description: optional or required, its default, its bounds.
 */

const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
/** RFC 3339 date-time with a zone, as the spec's `format: date-time` requires. */
const DATE_TIME = "^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$";

/** A uuid. */
export const uuid = (description: string) => Type.String({ pattern: UUID, description });

/** An RFC 3339 time with a zone. */
export const dateTime = (description: string) =>
  Type.String({ pattern: DATE_TIME, description: `${description} RFC 3339 with a zone, e.g. 2017-02-10T02:03:06.16Z.` });

/** A 32-bit integer, as the spec's `format: int32`. */
export const int32 = (description: string) => Type.Integer({ minimum: -2147483648, maximum: 2147483647, description });

/** Free text. */
export const text = (description: string) => Type.String({ description });

/**
 * A Key Vault key identifier: https, a vault host (3-24 letters, digits and hyphens, then the DNS
 * suffix), `/keys/<name>` (1-127 letters, digits and hyphens) and an optional 32-hex-digit version.
 */
export const KEY_VAULT_KEY_URI = "^https://[A-Za-z0-9-]{3,24}\\.[A-Za-z0-9.-]+(:443)?/keys/[A-Za-z0-9-]{1,127}(/[0-9A-Fa-f]{32})?/?$";

/** A Key Vault key identifier. */
export const keyUri = (description: string) => Type.String({ pattern: KEY_VAULT_KEY_URI, description });

/** How long something takes on the emulator clock, in ms: 0 to one day. */
export const durationMs = (description: string) => Type.Integer({ minimum: 0, maximum: 86_400_000, description });

/** An ARM name segment: no reserved characters (`<>*%&:\/?#`), 1-128 characters. */
export const armChildName = (description: string) =>
  Type.String({ minLength: 1, maxLength: 128, pattern: "^[^<>*%&:\\\\/?#]+$", description });
