import type { ClientSet } from "../clients/client-set";
import { NO_KEPT_STATE } from "../domain/state/no-kept-state";
import { allRules } from "../domain/compliance/registry";
import { resolveSettings } from "../domain/compliance/rule";
import type { Verdict } from "../domain/compliance/finding";
import { emptyFacts, gatherFacts, locatedIn, locatingKinds } from "../domain/facts/gather";
import { placementFactsOf, placements as placementKind, placeStackTolerantly } from "../domain/facts/placements";
import type { Placement } from "../domain/residency/placement";
import type { StackConfig } from "../domain/stack/stack-config";
import type { UnreadEntry } from "../domain/stack/unread-entry";
import { requireGeocodingService } from "../platform/settings/endpoints";

/** A placement with the verdict of the rules that judge placements (the data-residency rule) on it; none when the stack sets no residency. */
export type JudgedPlacement = Placement & { verdict?: "pass" | "violation" | "not-applicable" | "unknown" };

/**
 * Places every located resource of the stack (SQL databases, Batch AI workspaces, clusters, file
 * servers, the Key Vaults of its TDE protectors) and every site of `stackwarden:residency` in a
 * country, each with the verdict of the rules that judge placements (the data-residency rule) when
 * the stack allows only some countries.
 * A database the cloud answers an error for is not placed (the reason says why) and is listed in
 * `unread`; the others are placed.
 */
export async function runWhere(req: {
  stack: StackConfig;
  clients: ClientSet;
  concurrency?: number;
}): Promise<{ placements: JudgedPlacement[]; unread: UnreadEntry[] }> {
  const { stack, clients } = req;
  requireGeocodingService(clients.env, "`where` (it places resources and sites by geocoding)");
  const unread: UnreadEntry[] = [];
  // The located resources of the kinds that locate theirs (the Key Vaults of the TDE protectors),
  // as those kinds read them. They read no kept state.
  const located = await gatherFacts(
    locatingKinds().map((k) => k.key),
    {
      stack,
      stackName: "",
      clients,
      cwd: ".",
      state: NO_KEPT_STATE,
      concurrency: req.concurrency ?? 8,
      note: () => {},
      warn: () => {},
      unread: (entry) => unread.push(entry),
    },
  );
  const placed = await placeStackTolerantly({ sql: clients.sql, batch: clients.batch, geocoding: clients.geocoding }, stack, {
    concurrency: req.concurrency,
    unread: (entry) => unread.push(entry),
    failureOf: (e) => clients.reads.failureOf(e),
    also: locatedIn(located, stack.residency?.source),
  });
  const allowed = stack.residency?.allowedCountries;
  const placements = placed.map(({ unread: _why, ...p }): JudgedPlacement => {
    if (!allowed) return { ...p, verdict: undefined };
    const v = placementVerdict(placementFactsOf(p, allowed), stack.subscriptionId);
    // `where` has said "violation" for the rule's "fail" since it shipped.
    return { ...p, verdict: v === "fail" ? "violation" : v };
  });
  return { placements, unread };
}

/** The verdict of the rules that judge placements on one (the worst of theirs: fail, unknown, pass, then not-applicable). */
function placementVerdict(fact: ReturnType<typeof placementFactsOf>, subscriptionId: string): Exclude<Verdict, "exempt"> {
  const facts = { ...emptyFacts(subscriptionId), [placementKind.key]: [fact] };
  const judges = allRules().filter((r) => r.facts.includes(placementKind.key));
  const verdicts = new Set(judges.flatMap((r) => r.evaluate(facts, resolveSettings(r, undefined), Date.now()).map((f) => f.verdict)));
  return (["fail", "unknown", "pass"] as const).find((v) => verdicts.has(v)) ?? "not-applicable";
}
