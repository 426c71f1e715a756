/** Maps AAD v2 scopes to the v1 `resource` IMDS expects: `https://management.azure.com/.default` -> `https://management.azure.com/`. */
export function scopesToResource(scopes: string | string[]): string {
  const list = Array.isArray(scopes) ? scopes : [scopes];
  if (list.length !== 1) throw new Error(`exactly one scope is supported, got ${list.length}`);
  const scope = list[0];
  return scope.endsWith("/.default") ? scope.slice(0, -"/.default".length) + "/" : scope;
}

// Re-exported where credentials are asked for it; declared beside the ARM clients, which must not import auth.
export { ARM_SCOPE } from "../arm/arm-scope";
