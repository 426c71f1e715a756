import type { ClientSet } from "../clients/client-set";
import { judgePlacement } from "../domain/compliance/rules/data-residency";
import { gatherFacts, locatedIn, locatingKinds } from "../domain/facts/gather";
import { placementFactsOf, placeStackTolerantly } from "../domain/facts/placements";
import type { Placement } from "../domain/residency/placement";
import type { StackConfig } from "../domain/stack/stack-config";
import type { UnreadEntry } from "../domain/stack/unread-entry";
import { requireGeocodingService } from "../platform/settings/endpoints";

/** A placement with the data-residency rule's verdict on it (none when the stack sets no residency). */
export type JudgedPlacement = Placement & { verdict?: "pass" | "violation" | "not-applicable" | "unknown" };

/**
 * Places every located resource of the stack (SQL databases, Batch AI workspaces, clusters, file
 * servers, the Key Vaults of its TDE protectors) and every site of `stackwarden:residency` in a
 * country, each with the data-residency rule's own verdict when the stack allows only some countries.
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
  // as those kinds read them. They read no kept state, so the state directories are never looked at.
  const located = await gatherFacts(
    locatingKinds().map((k) => k.key),
    {
      stack,
      stackName: "",
      clients,
      cwd: ".",
      dirs: { locks: "", audit: "", probes: "" },
      concurrency: req.concurrency ?? 8,
      note: () => {},
      warn: () => {},
      unread: (entry) => unread.push(entry),
    },
  );
  const placed = await placeStackTolerantly({ sql: clients.sql, batch: clients.batch, geocoding: clients.geocoding }, stack, {
    concurrency: req.concurrency,
    unread: (entry) => unread.push(entry),
    also: locatedIn(located, stack.residency?.source),
  });
  const allowed = stack.residency?.allowedCountries;
  const placements = placed.map(({ unread: _why, ...p }): JudgedPlacement => {
    if (!allowed) return { ...p, verdict: undefined };
    // `where` has said "violation" for the rule's "fail" since it shipped.
    const v = judgePlacement(placementFactsOf(p, allowed)).verdict;
    return { ...p, verdict: v === "fail" ? "violation" : v };
  });
  return { placements, unread };
}
