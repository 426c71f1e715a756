import { mapBounded } from "../../platform/bounded-map";
import { unreadEntryOf, unreadProblem } from "../stack/unread-entry";
import { dataSourceOutputs, isDataSource, type DataSource, type DataSourceInstance, type DataSourceRead } from "./data-source";
import type { FactKind, GatherContext, ResourceContext } from "./fact-kind";
import type { FactOrigin } from "./model/compliance-facts";

/**
 * How a kind's facts are gathered live: its own `gather`, or (a kind that declares none) the way
 * the pack builds them. Each instance of the kind's data source that the stack registers is read
 * through the source's `read`, and the outputs the provider would give its resource are handed to
 * the kind's `fromResources`: `check`, a watch tick and the pack run one read and one mapping, so
 * they cannot disagree. The facts point at the instance's stack-file line and carry the read's receipt.
 */
export function gatherKind<T>(kind: FactKind<T>, ctx: GatherContext): Promise<T[]> {
  if (kind.gather) return kind.gather(ctx);
  const source = kind.carrier;
  if (!isDataSource(source)) throw new Error(gatherMissing(kind.key));
  return gatherThroughCarrier(kind, source, ctx);
}

/** Why a kind cannot be gathered, or undefined when it can (it declares `gather`, or its carrier is a data source that names its instances). */
export function gatherProblem(kind: Pick<FactKind, "key" | "gather" | "carrier">): string | undefined {
  if (kind.gather) return undefined;
  return isDataSource(kind.carrier) && kind.carrier.instances ? undefined : gatherMissing(kind.key);
}

function gatherMissing(key: string): string {
  return `fact kind "${key}" declares no gather, and its carrier is no data source with instances to gather through: declare one or the other`;
}

/** Every instance's facts, read at most `ctx.concurrency` at once, in the instances' order. */
async function gatherThroughCarrier<T>(kind: FactKind<T>, source: DataSource, ctx: GatherContext): Promise<T[]> {
  const known: ResourceContext = { known: (read) => read(), clients: ctx.clients };
  const lists = await mapBounded(source.instances?.(ctx.stack) ?? [], ctx.concurrency, async (instance) => {
    let read: DataSourceRead;
    try {
      read = await source.read(ctx.clients, instance.inputs, ctx.signal);
    } catch (e) {
      const failed = source.about && ctx.clients.reads.failureOf(e);
      if (!failed) throw e;
      // The cloud's answer about this subject alone: reported at its line, the others still judged.
      const entry = unreadEntryOf(failed, { ...source.about!(instance.inputs), source: instance.source });
      ctx.unread(entry);
      const facts = await kind.fromResources([{ type: source.type, props: { ...instance.inputs } }], known);
      return facts.map((f) => stamped(f, instance, undefined, unreadProblem(entry)));
    }
    const props = dataSourceOutputs(source, instance.inputs, read);
    const facts = await kind.fromResources([{ type: source.type, props }], known);
    return facts.map((f) => stamped(f, instance, read));
  });
  return lists.flat();
}

/** A fact built from a read as the pack builds it, with what gathering knows beside it: the stack line, the receipt, why it is unread. */
function stamped<T>(fact: T, instance: DataSourceInstance, read?: DataSourceRead, unread?: string): T {
  // No resource, no URN: the pack's `origin` has no place in a gathered fact.
  const { origin: _none, ...rest } = fact as T & FactOrigin;
  return {
    ...rest,
    ...(instance.source ? { source: instance.source } : {}),
    ...(read?.receipt ? { reads: [read.receipt] } : {}),
    ...(unread ? { unread } : {}),
  } as T;
}
