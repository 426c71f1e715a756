import { mapBounded } from "../../platform/bounded-map";
import { batchUsagesId } from "../../platform/arm/resource-id";
import type { Usage } from "../../services/batchai/types";
import { UNKNOWN, type Maybe } from "../../platform/unknown-value";
import type { FactOrigin } from "./model/compliance-facts";
import { resourcesOf } from "./carrier";
import { defineDataSource, inputsFromArmId, type DataSourceInputs } from "./data-source";
import { defineFactKind } from "./fact-kind";

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

const USAGES_INPUTS = ["subscriptionId", "location"];
const usagesId = (i: DataSourceInputs) => batchUsagesId({ subscriptionId: i.subscriptionId, location: i.location });

/** The Batch AI usages (quota use and limits) of a location, as the API returns them (`usages`): one per location the stack names. */
export const batchAiUsages = defineDataSource({
  token: "batchai:Usages",
  title: "the Batch AI usages of a location",
  inputs: USAGES_INPUTS,
  output: "usages",
  read: async (c, i) => ({ id: usagesId(i), value: await c.batch.listUsages(i.subscriptionId, i.location) }),
  inputsFromId: inputsFromArmId(USAGES_INPUTS, { location: "locations" }, usagesId),
  instances: (stack) =>
    stack.batch.locations.map((location) => ({
      name: `batchai-usages-${location}`,
      inputs: { subscriptionId: stack.subscriptionId, location },
    })),
});

/** The Batch AI usages of each location the stack names (`stackwarden:batch.locations`). */
export const batchUsages = defineFactKind<UsageFacts>({
  key: "usages",
  title: "Batch AI usages of each location",
  scope: "location",
  carrier: batchAiUsages,
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
    resourcesOf(batchAiUsages, resources).flatMap((r) => {
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
