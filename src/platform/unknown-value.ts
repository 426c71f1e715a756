/**
 * A value not known yet (a Pulumi preview of a resource still to be created or changed). A symbol
 * of the global registry, so every copy of this module (the CLI's, the pack's, a fixture's) means
 * the same value.
 */
export const UNKNOWN = Symbol.for("stackwarden.unknown");

/** A value, or UNKNOWN while it is not known yet. */
export type Maybe<T> = T | typeof UNKNOWN;
