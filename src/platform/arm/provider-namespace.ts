import type { NamingStyle } from "../settings/naming-style";

export type { NamingStyle };

/**
 * The product description renames the ARM namespaces (`Provider.Sql` for `Microsoft.Sql`).
 * Clients speak the real names unless `STACKWARDEN_PROVIDER_NAMES=described` asks for the
 * described ones (for gateways that use them); the emulator serves both.
 */
export type ArmService = "Sql" | "BatchAI";

/** The namespace a client puts in its paths. */
export function providerNamespace(service: ArmService, style: NamingStyle = "real"): string {
  return style === "described" ? `Provider.${service}` : `Microsoft.${service}`;
}

/** Both spellings, for the emulator's routes. */
export function bothNamespaces(service: ArmService): string[] {
  return [providerNamespace(service, "real"), providerNamespace(service, "described")];
}
