/** The engine's marker for a value not known during a preview. */
export function isUnknown(v: unknown): boolean {
  return v === "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
}
