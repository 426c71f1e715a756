import { UNKNOWN, type Maybe } from "../../../platform/unknown-value";
import type { ResourceContext, ResourceInput } from "../fact-kind";

/**
 * The resources of a user's own Pulumi program as the policy pack sees them (azure-native or azure
 * provider types), read as plain data: a value the engine does not know yet (an output of another
 * resource, at preview) is UNKNOWN where it sits, and can be followed to the resource it flows from.
 */
export class ProgramResources {
  private readonly byUrn = new Map<string, ResourceInput>();
  private readonly plainOf = new Map<ResourceInput, Record<string, unknown>>();

  constructor(
    readonly resources: readonly ResourceInput[],
    private readonly ctx: Pick<ResourceContext, "known">,
  ) {
    for (const r of resources) if (r.urn) this.byUrn.set(r.urn, r);
  }

  /** The resources of these type tokens, in the program's order. */
  ofType(...types: string[]): ResourceInput[] {
    return this.resources.filter((r) => types.includes(r.type));
  }

  /** Whether the program declares any resource of these types (nothing to build otherwise). */
  has(...types: string[]): boolean {
    return this.resources.some((r) => types.includes(r.type));
  }

  /** A resource's properties as plain data, unknowns as UNKNOWN (read once per resource). */
  props(r: ResourceInput): Record<string, unknown> {
    let plain = this.plainOf.get(r);
    if (!plain) {
      const all = this.plain(() => r.props);
      plain = all && typeof all === "object" && !Array.isArray(all) ? (all as Record<string, unknown>) : {};
      this.plainOf.set(r, plain);
    }
    return plain;
  }

  /** A property at a path (`["properties", "enablePurgeProtection"]`): its value, UNKNOWN, or undefined when absent. */
  value(r: ResourceInput, ...path: string[]): unknown {
    let v: unknown = this.props(r);
    for (const k of path) {
      if (v === UNKNOWN) return UNKNOWN;
      if (!v || typeof v !== "object") return undefined;
      v = (v as Record<string, unknown>)[k];
    }
    return v;
  }

  /** A string property: the string, UNKNOWN, or undefined (absent or not a string). */
  str(r: ResourceInput, ...path: string[]): Maybe<string | undefined> {
    const v = this.value(r, ...path);
    return v === UNKNOWN ? UNKNOWN : typeof v === "string" ? v : undefined;
  }

  /**
   * The resource of one of these types that a property's value flows from (the engine's property
   * dependencies): where to read what the property will be when it is unknown at preview.
   */
  source(r: ResourceInput, property: string, ...types: string[]): ResourceInput | undefined {
    for (const urn of r.dependsOn?.[property] ?? []) {
      const from = this.byUrn.get(urn);
      if (from && types.includes(from.type)) return from;
    }
    return undefined;
  }

  /** Deep plain copy through the pack's `known`: CrossGuard throws on reading an unknown, at any depth. */
  private plain(read: () => unknown): unknown {
    const v = this.ctx.known(read);
    if (v === UNKNOWN || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((_, i) => this.plain(() => (v as unknown[])[i]));
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = this.plain(() => (v as Record<string, unknown>)[k]);
    return out;
  }
}

/** Whether a plain value holds UNKNOWN anywhere. */
export function hasUnknown(v: unknown): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(hasUnknown);
  if (v && typeof v === "object") return Object.values(v).some(hasUnknown);
  return false;
}
