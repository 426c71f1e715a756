import type { SourceLocation } from "../config/stack-config";

/** A value not known yet (a Pulumi preview of a resource still to be created or changed). */
export const UNKNOWN = Symbol.for("stackwarden.unknown");
export type Maybe<T> = T | typeof UNKNOWN;

/** What a service tier advisor said, in the spec's field names. */
export interface AdvisorFacts {
  name?: string;
  overallRecommendationServiceLevelObjective?: string;
  currentServiceLevelObjective?: string;
  /** The spec's `confidence`, 0..1. */
  confidence?: number;
  observationPeriodEnd?: string;
}

/** One database as the rules see it. */
export interface DatabaseFacts {
  /** The database's ARM id (`.../servers/S/databases/D`). */
  id: string;
  resourceGroup: string;
  server: string;
  database: string;
  liveTdeStatus: Maybe<string | undefined>;
  /**
   * Where `liveTdeStatus` came from: `live` (read from the API, the default) or `desired` (a Pulumi
   * preview, where the status the resource will have is the one the stack sets).
   */
  tdeStatusSource?: "live" | "desired";
  /** The `serviceObjective` the stack intends, if any. */
  intendedServiceObjective?: string;
  /** Advisor output; undefined when the database has none, UNKNOWN during a preview. */
  advisor: Maybe<AdvisorFacts | undefined>;
  source?: SourceLocation;
}

/** One Batch AI usage of a location the stack names. */
export interface UsageFacts {
  location: string;
  /** `name.value` of the usage, e.g. `cores`. */
  name: string;
  displayName?: string;
  currentValue: Maybe<number | undefined>;
  limit: Maybe<number | undefined>;
  unit?: string;
}

export interface ComplianceFacts {
  subscriptionId: string;
  databases: DatabaseFacts[];
  usages: UsageFacts[];
  /** Where the stack file says the Batch section is, for report locations of usage findings. */
  batchSource?: SourceLocation;
}

/** The resource id a usage finding is reported on (usages have no ARM id of their own). */
export function usageResourceId(subscriptionId: string, u: Pick<UsageFacts, "location" | "name">): string {
  return `/subscriptions/${subscriptionId}/providers/Microsoft.BatchAI/locations/${u.location}/usages/${u.name}`;
}
