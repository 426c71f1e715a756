import { databaseLabel, sqlDatabaseId } from "../../platform/arm/resource-id";
import { databaseSubscription } from "../stack/stack-config";
import type { ServiceTierAdvisor } from "../../services/sql/types";
import { UNKNOWN, type Maybe } from "../../platform/unknown-value";
import type { FactOrigin } from "./model/compliance-facts";
import { resourcesOf } from "./carrier";
import { defineDataSource, inputsFromArmId, logicalName, type DataSourceInputs } from "./data-source";
import { defineFactKind } from "./fact-kind";
import { databaseParamsOf } from "./read-params";
import { DATABASE_INPUTS, databaseRefOf, subjectOf } from "./tde-status";

/** What a service tier advisor said, in the spec's field names. */
export interface AdvisorFacts {
  name?: string;
  overallRecommendationServiceLevelObjective?: string;
  currentServiceLevelObjective?: string;
  /** The spec's `confidence`, 0..1. */
  confidence?: number;
  observationPeriodEnd?: string;
}

/** A database's service tier advice, beside the tier the stack intends. */
export interface TierAdvisorFacts extends FactOrigin {
  /** The database's ARM id. */
  id: string;
  resourceGroup: string;
  server: string;
  database: string;
  /** The `serviceObjective` the stack intends, if any. */
  intendedServiceObjective?: string;
  /** Advisor output; undefined when the database has none, UNKNOWN during a preview. */
  advisor: Maybe<AdvisorFacts | undefined>;
}

declare module "./model/compliance-facts" {
  interface FactMap {
    tierAdvisors: TierAdvisorFacts;
  }
}

const advisorsId = (i: DataSourceInputs) => `${sqlDatabaseId(databaseRefOf(i))}/serviceTierAdvisors`;

/**
 * A database's service tier advisors as the API returns them (`advisors`, ServiceTierAdvisors_ListByDatabase),
 * beside the tier the stack intends (`serviceObjective`, carried for the tier-advice facts): one per
 * database. A database the cloud answers an error for is reported unread, the others still judged.
 */
export const serviceTierAdvisors = defineDataSource({
  token: "sql:ServiceTierAdvisors",
  title: "the service tier advisors of a database",
  inputs: DATABASE_INPUTS,
  carried: ["serviceObjective"],
  output: "advisors",
  read: async (c, i, signal) => {
    const { value, receipt } = await c.reads.read("ServiceTierAdvisors_ListByDatabase", databaseParamsOf(databaseRefOf(i)), signal);
    return { id: advisorsId(i), value, receipt };
  },
  inputsFromId: inputsFromArmId(DATABASE_INPUTS, { server: "servers", database: "databases" }, advisorsId),
  about: (i) => ({ kind: "database", id: sqlDatabaseId(databaseRefOf(i)), label: databaseLabel(databaseRefOf(i)) }),
  instances: (stack) =>
    stack.databases.map((d) => ({
      name: `advisors-${logicalName(d.resourceGroup, d.server, d.database)}`,
      inputs: {
        subscriptionId: databaseSubscription(stack, d),
        resourceGroup: d.resourceGroup,
        server: d.server,
        database: d.database,
        ...(d.serviceObjective ? { serviceObjective: d.serviceObjective } : {}),
      },
      source: d.source,
    })),
});

/**
 * Each managed database's service tier advice (its advisors, read live), beside the tier the stack
 * intends: gathered as the pack builds it, from the carrier's reads.
 */
export const tierAdvice = defineFactKind<TierAdvisorFacts>({
  key: "tierAdvisors",
  title: "service tier advice of each database",
  scope: "database",
  carrier: serviceTierAdvisors,
  fromResources: (resources, ctx) =>
    resourcesOf(serviceTierAdvisors, resources).map((r) => {
      const advisor = ctx.known(() => {
        const list = r.props.advisors as ServiceTierAdvisor[] | undefined;
        return list ? pickAdvisor(list) : undefined;
      });
      const intended = ctx.known(() => r.props.serviceObjective as string | undefined);
      // An intended tier not known yet (a preview) cannot be compared: judging the current one instead
      // would flag a database the stack is about to move to the recommended tier.
      return {
        ...subjectOf(databaseRefOf(r.props)),
        intendedServiceObjective: intended === UNKNOWN ? undefined : intended,
        advisor: intended === UNKNOWN ? UNKNOWN : advisor,
        origin: r.urn,
      };
    }),
});

/** The advisor named `Current` (the one Azure maintains), else the first, in the rules' terms. */
export function pickAdvisor(advisors: readonly ServiceTierAdvisor[]): AdvisorFacts | undefined {
  const a = advisors.find((x) => x.name?.toLowerCase() === "current") ?? advisors[0];
  if (!a?.properties) return undefined;
  const p = a.properties as Record<string, unknown>;
  return {
    name: a.name,
    overallRecommendationServiceLevelObjective: str(p.overallRecommendationServiceLevelObjective),
    currentServiceLevelObjective: str(p.currentServiceLevelObjective),
    confidence: typeof p.confidence === "number" ? p.confidence : undefined,
    observationPeriodEnd: str(p.observationPeriodEnd),
  };
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v ? v : undefined;
}
