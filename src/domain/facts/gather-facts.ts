import { sqlDatabaseId } from "../../platform/arm/resource-id";
import type { ComplianceFacts, DatabaseFacts, TierAdvisorFacts } from "../compliance/facts";
import { mapBounded } from "../../platform/bounded-map";
import type { StackConfig } from "../stack/stack-config";
import type { BatchAiClient } from "../../services/batchai/client";
import type { SqlClient } from "../../services/sql/client";
import type { StoredProbeRun } from "../probes/probe-results-store";
import { pickAdvisor } from "./advisor-facts";
import { probeFacts } from "./probe-facts";
import { usageFacts } from "./usage-facts";

export interface FactSources {
  sql: Pick<SqlClient, "getTransparentDataEncryption" | "listServiceTierAdvisors">;
  batch: Pick<BatchAiClient, "listUsages">;
  /**
   * The stack's last probe run (`check` reads it from the probe directory). Absent: the probes are
   * not judged (drift, watch); `null`: none is kept, so each probe has no result yet.
   */
  lastProbeRun?: StoredProbeRun | null;
}

/**
 * Reads the live state the rules judge: each database's TDE and advisors, each location's usages,
 * and (when given the last probe run) each probe's last result. Placements: see gatherPlacements.
 */
export async function gatherFacts(
  sources: FactSources,
  stack: StackConfig,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<ComplianceFacts> {
  const limit = opts.concurrency ?? 16;
  const perDatabase = await mapBounded(stack.databases, limit, async (d): Promise<[DatabaseFacts, TierAdvisorFacts]> => {
    const ref = { subscriptionId: stack.subscriptionId, resourceGroup: d.resourceGroup, server: d.server, database: d.database };
    const [tde, advisors] = await Promise.all([
      sources.sql.getTransparentDataEncryption(ref, opts.signal),
      sources.sql.listServiceTierAdvisors(ref, opts.signal),
    ]);
    const subject = { id: sqlDatabaseId(ref), resourceGroup: d.resourceGroup, server: d.server, database: d.database, source: d.source };
    return [
      { ...subject, liveTdeStatus: tde.properties?.status },
      { ...subject, intendedServiceObjective: d.serviceObjective, advisor: pickAdvisor(advisors) },
    ];
  });
  const perLocation = await mapBounded(stack.batch.locations, limit, async (location) =>
    (await sources.batch.listUsages(stack.subscriptionId, location, opts.signal)).map((u) => ({
      ...usageFacts(stack.subscriptionId, location, u),
      source: stack.batch.source,
    })),
  );
  return {
    subscriptionId: stack.subscriptionId,
    databases: perDatabase.map(([db]) => db),
    tierAdvisors: perDatabase.map(([, advice]) => advice),
    usages: perLocation.flat(),
    // The artifacts are scanned by gatherArtifactFacts (another service, asked only when the stack names artifacts).
    artifacts: [],
    probes: sources.lastProbeRun === undefined ? [] : probeFacts(stack.probes ?? [], sources.lastProbeRun ?? undefined),
    // Placing needs the geocoding service: gatherLiveFacts adds them (gatherPlacements) when the stack sets residency.
    placements: [],
  };
}
