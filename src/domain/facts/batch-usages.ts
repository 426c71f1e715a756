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
  read: async (c, i, signal) => {
    const { value, receipt } = await c.reads.read("Usages_List", { subscriptionId: i.subscriptionId, location: i.location }, signal);
    return { id: usagesId(i), value, receipt };
  },
  inputsFromId: inputsFromArmId(USAGES_INPUTS, { location: "locations" }, usagesId),
  instances: (stack) =>
    stack.batch.locations.map((location) => ({
      name: `batchai-usages-${location}`,
      inputs: { subscriptionId: stack.subscriptionId, location },
      source: stack.batch.source,
    })),
});

/** The Batch AI usages of each location the stack names (`stackwarden:batch.locations`): gathered as the pack builds them, from the carrier's reads. */
export const batchUsages = defineFactKind<UsageFacts>({
  key: "usages",
  title: "Batch AI usages of each location",
  scope: "location",
  carrier: batchAiUsages,
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
