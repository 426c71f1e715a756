import type { ComplianceFacts } from "../compliance/facts";
import type { StackConfig } from "../stack/stack-config";
import type { ResidencySources } from "../residency/place-stack";
import { gatherFacts, type FactSources } from "./gather-facts";
import { gatherPlacements } from "./placement-facts";
import { sharedTdeReads } from "./shared-tde-reads";

export interface LiveFactSources extends FactSources {
  batch: FactSources["batch"] & ResidencySources["batch"];
  /** Asked for only when the stack sets `stackwarden:residency` (its endpoint may be unset otherwise). */
  geocoding: () => ResidencySources["geocoding"];
}

/**
 * The live facts of one run (`check`, a `watch` tick): the rules' facts and, when the stack sets
 * `stackwarden:residency`, the placements, with each database's TDE configuration read once for both.
 */
export async function gatherLiveFacts(
  sources: LiveFactSources,
  stack: StackConfig,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<ComplianceFacts> {
  const tde = sharedTdeReads(sources.sql);
  const sql = { ...tde, listServiceTierAdvisors: sources.sql.listServiceTierAdvisors.bind(sources.sql) };
  const [gathered, placements] = await Promise.all([
    gatherFacts({ sql, batch: sources.batch, lastProbeRun: sources.lastProbeRun }, stack, opts),
    stack.residency ? gatherPlacements({ sql: tde, batch: sources.batch, geocoding: sources.geocoding() }, stack, opts) : [],
  ]);
  return { ...gathered, placements };
}
