import type { ComplianceFacts } from "./model/compliance-facts";
import { allFactKinds } from "./registry";

/**
 * The facts about one database or server (by ARM id, compared without regard to case): of every
 * kind of that scope, the facts whose `id` is it; of every other kind, none.
 */
export function factsAbout(facts: ComplianceFacts, scope: "database" | "server", id: string): ComplianceFacts {
  const subject = id.toLowerCase();
  const out: Record<string, unknown> = { ...facts };
  for (const kind of allFactKinds()) {
    const list = (facts as unknown as Record<string, { id?: unknown }[] | undefined>)[kind.key] ?? [];
    out[kind.key] = kind.scope === scope ? list.filter((f) => typeof f.id === "string" && f.id.toLowerCase() === subject) : [];
  }
  return out as ComplianceFacts;
}
