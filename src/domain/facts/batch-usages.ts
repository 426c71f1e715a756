import { mapBounded } from "../../platform/bounded-map";
import type { Usage } from "../../services/batchai/types";
import { UNKNOWN, type Maybe } from "../../platform/unknown-value";
import type { FactOrigin } from "./model/compliance-facts";
import { defineFactKind } from "./fact-kind";
import { RESOURCE_TYPES } from "./resource-types";

/** One Batch AI usage of a location the stack names. */
export interface UsageFacts extends FactOrigin {
  subscriptionId: string;
  location: string;
  /** `name.value` of the usage, e.g. `cores`. */
  name: string;
  displayName?: string;
  currentValue: Maybe<number | undefined>;
  limit: Maybe<number | undefined>;
  unit?: string;
}

declare module "./model/compliance-facts" {
  interface FactMap {
    usages: UsageFacts;
  }
}

/** The Batch AI usages of each location the stack names (`stackwarden:batch.locations`). */
export const batchUsages = defineFactKind<UsageFacts>({
  key: "usages",
  title: "Batch AI usages of each location",
  gather: async (ctx) => {
    const { stack } = ctx;
    const perLocation = await mapBounded(stack.batch.locations, ctx.concurrency, async (location) =>
      (await ctx.clients.batch.listUsages(stack.subscriptionId, location, ctx.signal)).map((u) => ({
        ...usageFactsOf(stack.subscriptionId, location, u),
        source: stack.batch.source,
      })),
    );
    return perLocation.flat();
  },
  fromResources: (resources, ctx) =>
    resources
      .filter((r) => r.type === RESOURCE_TYPES.usages)
      .flatMap((r) => {
        const list = ctx.known(() => r.props.usages as Usage[] | undefined);
        if (list === UNKNOWN) return [];
        return (list ?? []).map((u: Usage) => ({
          ...usageFactsOf(String(r.props.subscriptionId), String(r.props.location), u),
          origin: r.urn,
        }));
      }),
});

/** A Batch AI usage in the rules' terms. */
export function usageFactsOf(subscriptionId: string, location: string, u: Usage): UsageFacts {
  return {
    subscriptionId,
    location,
    name: u.name?.value ?? "unknown",
    displayName: u.name?.localizedValue,
    currentValue: u.currentValue,
    limit: u.limit,
    unit: u.unit,
  };
}
