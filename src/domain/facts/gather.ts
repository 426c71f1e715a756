import { setMaxListeners } from "node:events";
import type { ComplianceFacts } from "./model/compliance-facts";
import type { FactKind, GatherContext, ResourceContext, ResourceInput } from "./fact-kind";
import { gatherKind } from "./carried-gather";
import { allFactKinds, findFactKind } from "./registry";
import type { SourceLocation } from "../../platform/yaml/source-location";
import type { ResidencySubject } from "../residency/residency-subjects";

/** What gathering needs besides what it makes itself (the shared reads); `unread` defaults to ignoring them. */
export type GatherInput = Omit<GatherContext, "once" | "unread" | "located"> & { unread?: GatherContext["unread"] };

/**
 * Gathers the facts of the kinds named (each registered kind's list is there; those not named are
 * empty): every kind's `prepare` first, so a missing setting stops the run before any request,
 * then every kind at once, sharing reads. With `planned`, each kind reads as the stack's plan
 * leaves it; with `widen`, after the prepares, the stack becomes what it returns (the scope's
 * discovered databases). A read that fails fails the gathering, and cancels the other kinds' reads (their
 * retries would only keep the process waiting for an answer that no longer matters).
 */
export async function gatherFacts(
  keys: readonly string[],
  input: GatherInput,
  opts: { planned?: boolean; widen?: (stack: GatherContext["stack"]) => Promise<GatherContext["stack"]> } = {},
): Promise<ComplianceFacts> {
  const kinds = kindsNamed(keys);
  const reads = new Map<string, Promise<unknown>>();
  const failed = new AbortController();
  const signal = input.signal ? AbortSignal.any([input.signal, failed.signal]) : failed.signal;
  // Every read of the gathering listens to it, up to the concurrency per kind at once: not a leak.
  setMaxListeners(0, signal);
  const reported = new Set<string>();
  const ctx: GatherContext = {
    ...input,
    signal,
    unread: (entry) => {
      const key = entry.id.toLowerCase();
      if (reported.has(key)) return;
      reported.add(key);
      input.unread?.(entry);
    },
    once: <T>(key: string, read: () => Promise<T>) => {
      let r = reads.get(key);
      if (!r) reads.set(key, (r = read()));
      return r as Promise<T>;
    },
    located: () =>
      ctx.once("located", async () => {
        const lists = await Promise.all(locatingKinds().map(async (k) => k.locates!(await gatherKind(k, ctx))));
        return lists.flat();
      }),
  };
  for (const kind of kinds) await kind.prepare?.(ctx);
  // What widens the stack (its scope's discovery) reads only once every setting is known to be there.
  if (opts.widen) ctx.stack = await opts.widen(ctx.stack);
  const lists = await Promise.all(
    kinds.map((kind) =>
      (opts.planned && kind.planned ? kind.planned(ctx, () => gatherKind(kind, ctx)) : gatherKind(kind, ctx)).catch((e: unknown) => {
        failed.abort(e);
        throw e;
      }),
    ),
  );
  const facts = emptyFacts(input.stack.subscriptionId);
  kinds.forEach((kind, i) => ((facts as unknown as Record<string, unknown[]>)[kind.key] = lists[i]));
  return facts;
}

/** The facts of the kinds named, built from the policy pack's resources (the others are empty). */
export async function factsFromResources(
  keys: readonly string[],
  resources: readonly ResourceInput[],
  ctx: ResourceContext,
): Promise<ComplianceFacts> {
  const kinds = kindsNamed(keys);
  const lists = await Promise.all(kinds.map((kind) => kind.fromResources(resources, ctx)));
  const facts = emptyFacts("");
  kinds.forEach((kind, i) => ((facts as unknown as Record<string, unknown[]>)[kind.key] = lists[i]));
  return facts;
}

/** The kinds that locate their facts' resources (`FactKind.locates`): what `where` gathers beside its own reads. */
export function locatingKinds(): FactKind[] {
  return allFactKinds().filter((k) => k.locates);
}

/** The located resources among gathered facts, of every kind that locates them, reported at `source`. */
export function locatedIn(facts: ComplianceFacts, source?: SourceLocation): ResidencySubject[] {
  return locatingKinds().flatMap((k) => k.locates!((facts as unknown as Record<string, unknown[]>)[k.key] ?? [], source));
}

/** The subjects of gathered facts that could not be judged at all (`FactKind.incompleteReads`), of every kind. */
export function incompleteReadsIn(facts: ComplianceFacts): { path: string; error: string }[] {
  return allFactKinds().flatMap((k) => k.incompleteReads?.((facts as unknown as Record<string, unknown[]>)[k.key] ?? []) ?? []);
}

/** Facts with an empty list for every registered kind, to build on. */
export function emptyFacts(subscriptionId: string): ComplianceFacts {
  const facts: Record<string, unknown> = { subscriptionId };
  for (const kind of allFactKinds()) facts[kind.key] = [];
  return facts as ComplianceFacts;
}

/** The registered kinds among `keys`, in registry order; an unknown key is a programming error (a rule naming a kind nobody registered). */
function kindsNamed(keys: readonly string[]): FactKind[] {
  for (const key of keys) {
    if (!findFactKind(key)) throw new Error(`no fact kind "${key}" is registered (a rule names it in its facts)`);
  }
  return allFactKinds().filter((k) => keys.includes(k.key));
}
