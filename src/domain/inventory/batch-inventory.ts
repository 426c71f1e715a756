import { setMaxListeners } from "node:events";
import type { BatchAiClient } from "../../services/batchai/client";
import { oddResourceId } from "../../platform/arm/arm-client";
import {
  batchUsagesId,
  batchWorkspaceId,
  childId,
  leafName,
  parseResourceId,
  providerScope,
  resourceGroupId,
  subscriptionId as subscriptionScope,
  workspaceRefOf,
  type WorkspaceRef,
} from "../../platform/arm/resource-id";
import type { Cluster, Experiment, FileServer, Job, Operation, Usage, Workspace } from "../../services/batchai/types";
import { inventoryError, type InventoryError, type InventoryWarning } from "./read-problems";

/** What `collectBatchInventory` reads. */
export interface BatchInventoryScope {
  subscriptionId: string;
  /** Optional: discover workspaces only in these resource groups. Default: every workspace of the subscription. */
  resourceGroups?: string[];
  /** Usages are read for each of these locations (may be empty). */
  locations: string[];
}

export interface BatchInventoryOptions {
  /** Reads in flight at most; a positive integer. Default 8. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Called after each read with the reads done and the reads known so far (the total grows while discovering). */
  onProgress?: (done: number, total: number, what: string) => void;
}

/**
 * Every Batch AI data source of a scope, each an array of the objects exactly as the API returned
 * them, sorted (by id; operations by name; usages by location, then name) so two runs over the
 * same estate give identical JSON.
 */
export interface BatchInventory {
  operations: Operation[];
  /** The usages of every location in `scope.locations`, location by location. */
  usages: Usage[];
  /** The same usage objects by location (lower-cased): a Usage carries no location of its own. */
  usagesByLocation: Record<string, Usage[]>;
  workspaces: Workspace[];
  clusters: Cluster[];
  experiments: Experiment[];
  fileServers: FileServer[];
  jobs: Job[];
  /** Reads that failed, one per list; everything else was still read. */
  errors: InventoryError[];
  /** Odd items that were kept as the API returned them (once per resource). */
  warnings: InventoryWarning[];
}

/**
 * Scheduling priorities: reads that unlock more reads go first; among leaves, the longer lists
 * (jobs) first. Within a priority, pages take turns: a list's next page queues behind the pages
 * already waiting, so all lists advance together and no slot idles while a few long lists finish.
 */
const Priority = { Discovery: 0, Experiments: 1, Jobs: 2, Leaf: 3 } as const;
type Priority = (typeof Priority)[keyof typeof Priority];

/**
 * Reads the whole Batch AI estate of a subscription: the provider's operations, the usages of each
 * location, the workspaces (of the subscription, or of the listed resource groups), and for each
 * workspace its clusters, experiments and file servers, and for each experiment its jobs. Every
 * list is followed to its last page. At most `concurrency` requests are in flight; each page is
 * its own read, so a slot is free again between a list's pages. A read that unlocks others is
 * started first, so the dependent job listings (sequential pages) start early.
 * A list whose read fails becomes one entry of `errors` (what it read, the API's answer), and the
 * pages it had already read are kept: one failure never stops the rest. An item whose id is missing
 * or odd is kept as the API returned it, with one entry in `warnings`. Only a cancelled `signal`
 * stops the whole inventory.
 */
export async function collectBatchInventory(
  client: BatchAiClient,
  scope: BatchInventoryScope,
  opts: BatchInventoryOptions = {},
): Promise<BatchInventory> {
  const concurrency = opts.concurrency ?? 8;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  if (!scope?.subscriptionId) throw new TypeError("collectBatchInventory: scope.subscriptionId is required");

  const sched = new ReadScheduler(concurrency, opts.signal, opts.onProgress);
  const signal = sched.signal;
  const operations: Operation[] = [];
  const usages = new Map<string, Usage[]>();
  const workspaces = new Map<string, Workspace>();
  const clusters: Cluster[] = [];
  const experiments: Experiment[] = [];
  const fileServers: FileServer[] = [];
  const jobs: Job[] = [];
  const warnings: InventoryWarning[] = [];
  const warned = new Set<string>();
  const warn = (resource: string, id: string | undefined, message: string) => {
    const key = `${resource}\u0000${id ?? ""}\u0000${message}`;
    if (warned.has(key)) return;
    warned.add(key);
    warnings.push({ resource, ...(id ? { id } : {}), message });
  };
  /** Notes items whose id is missing or odd (they are kept either way). */
  const keep = <T extends object>(into: T[], what: string, items: readonly T[]) => {
    for (const it of items) {
      const odd = oddResourceId(it);
      if (odd) warn(what, undefined, `${describeItem(it)} ${odd}; it is kept as the API returned it`);
      into.push(it);
    }
  };

  const onWorkspaces = (found: Workspace[], listedIn: { resourceGroup?: string }, what: string) => {
    for (const ws of found) {
      const id = typeof ws.id === "string" ? ws.id : undefined;
      const name = typeof ws.name === "string" && ws.name ? ws.name : undefined;
      let ref = id ? workspaceRefOf(id) : undefined;
      const key = ref ? batchWorkspaceId(ref).toLowerCase() : (id?.toLowerCase() ?? `\u0000${workspaces.size}`);
      if (workspaces.has(key)) continue;
      workspaces.set(key, ws);
      if (!ref) {
        // The workspace is listed as it came; its children can be read only when its place is known:
        // the resource group its odd id still names (Azure's own Workspaces_List example says
        // `/providers/Microsoft.BatchAI/workspace/…`, singular), or the one it was listed in.
        const resourceGroup = (id ? parseResourceId(id)?.resourceGroup : undefined) ?? listedIn.resourceGroup;
        if (name && resourceGroup) {
          ref = { subscriptionId: sub, resourceGroup, workspace: name };
          warn(
            what,
            id,
            `${describeItem(ws)} ${oddResourceId(ws) ?? "has an id that names no workspace"}; it is kept, and its children are read by its name in resource group ${resourceGroup}`,
          );
        } else {
          warn(
            what,
            id,
            `${describeItem(ws)} ${oddResourceId(ws) ?? "has an id that names no Batch AI workspace (/subscriptions/…/resourceGroups/…/providers/…/workspaces/…)"}; it is kept, but its clusters, experiments, file servers and jobs could not be read`,
          );
          continue;
        }
      }
      addWorkspaceChildren(ref);
    }
  };

  const addWorkspaceChildren = (ref: WorkspaceRef) => {
    const label = `${ref.resourceGroup}/${ref.workspace}`;
    const wsId = batchWorkspaceId(ref);
    const experimentsWhat = `experiments of ${label}`;
    sched.addList(Priority.Experiments, experimentsWhat, `${wsId}/experiments`, client.experimentPages(ref, signal), (found) => {
      keep(experiments, experimentsWhat, found);
      for (const e of found) {
        const name = experimentName(e);
        if (!name) {
          warn(experimentsWhat, undefined, `${describeItem(e)} has neither a usable id nor a name; its jobs could not be read`);
          continue;
        }
        const jobsWhat = `jobs of ${label}/${name}`;
        sched.addList(Priority.Jobs, jobsWhat, `${childId(wsId, "experiments", name)}/jobs`, client.jobPages(ref, name, signal), (page) =>
          keep(jobs, jobsWhat, page),
        );
      }
    });
    const clustersWhat = `clusters of ${label}`;
    sched.addList(Priority.Leaf, clustersWhat, `${wsId}/clusters`, client.clusterPages(ref, signal), (page) =>
      keep(clusters, clustersWhat, page),
    );
    const fileServersWhat = `file servers of ${label}`;
    sched.addList(Priority.Leaf, fileServersWhat, `${wsId}/fileServers`, client.fileServerPages(ref, signal), (page) =>
      keep(fileServers, fileServersWhat, page),
    );
  };

  const sub = scope.subscriptionId;
  if (scope.resourceGroups) {
    for (const rg of uniqueCaseless(scope.resourceGroups)) {
      const what = `workspaces of resource group ${rg}`;
      sched.addList(
        Priority.Discovery,
        what,
        `${providerScope(resourceGroupId({ subscriptionId: sub, resourceGroup: rg }), "BatchAI")}/workspaces`,
        client.workspacePagesByResourceGroup(sub, rg, signal),
        (found) => onWorkspaces(found, { resourceGroup: rg }, what),
      );
    }
  } else {
    const what = `workspaces of subscription ${sub}`;
    sched.addList(
      Priority.Discovery,
      what,
      `${providerScope(subscriptionScope({ subscriptionId: sub }), "BatchAI")}/workspaces`,
      client.workspacePages(sub, signal),
      (found) => onWorkspaces(found, {}, what),
    );
  }
  sched.addList(Priority.Leaf, "operations", `${providerScope("", "BatchAI")}/operations`, client.operationPages(signal), (page) =>
    pushAll(operations, page),
  );
  for (const location of uniqueCaseless(scope.locations ?? [])) {
    const found: Usage[] = [];
    usages.set(location.toLowerCase(), found);
    sched.addList(
      Priority.Leaf,
      `usages in ${location}`,
      batchUsagesId({ subscriptionId: sub, location }),
      client.usagePages(sub, location, signal),
      (page) => pushAll(found, page),
    );
  }

  await sched.finished();

  const usagesByLocation: Record<string, Usage[]> = {};
  for (const loc of [...usages.keys()].sort()) usagesByLocation[loc] = sortByKey(usages.get(loc)!, (u) => u.name?.value);
  return {
    operations: sortByKey(operations, (o) => o.name),
    usages: Object.values(usagesByLocation).flat(),
    usagesByLocation,
    workspaces: sortByKey([...workspaces.values()], byId),
    clusters: sortByKey(dedupe(clusters), byId),
    experiments: sortByKey(dedupe(experiments), byId),
    fileServers: sortByKey(dedupe(fileServers), byId),
    jobs: sortByKey(dedupe(jobs), byId),
    errors: sched.errors.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0)),
    warnings,
  };
}

/** `a Workspace named 'w1'`, `an item`: how an odd item is named in a warning. */
function describeItem(it: object): string {
  const name = (it as { name?: unknown }).name;
  return typeof name === "string" && name ? `the item named '${name}'` : "an item without a name";
}

/** An experiment's name: the last segment of its id, else its `name` member. */
function experimentName(e: Experiment): string | undefined {
  if (typeof e.id === "string" && parseResourceId(e.id)) {
    const n = leafName(e.id);
    if (n) return n;
  }
  return typeof e.name === "string" && e.name ? e.name : undefined;
}

/** Pushes without spreading, so a list of any length is safe. */
function pushAll<T>(into: T[], items: readonly T[]): void {
  for (const it of items) into.push(it);
}

/** Drops repeated ids: a list that shifts while it is paged may show an item twice. Items without an id are all kept. */
function dedupe<T extends { id?: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((it) => {
    if (typeof it.id !== "string" || !it.id) return true;
    const k = it.id.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function uniqueCaseless(values: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const v of values) if (!seen.has(v.toLowerCase())) seen.set(v.toLowerCase(), v);
  return [...seen.values()];
}

/**
 * Sorts by a string key in a total, locale-independent order: case-insensitive first, exact as the
 * tie-break. Keys are computed once per item, not once per comparison (10 000 jobs, ~140 000 comparisons).
 */
function sortByKey<T>(items: readonly T[], keyOf: (t: T) => unknown): T[] {
  const keyed = items.map((item) => {
    const raw = keyOf(item);
    const k = typeof raw === "string" ? raw : raw === undefined || raw === null ? "" : String(raw);
    return { item, k, l: k.toLowerCase() };
  });
  keyed.sort((a, b) => (a.l < b.l ? -1 : a.l > b.l ? 1 : a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return keyed.map((e) => e.item);
}
/** By id; an item without one sorts by its name. */
const byId = (r: { id?: unknown; name?: unknown }) => (typeof r.id === "string" ? r.id : typeof r.name === "string" ? r.name : "");

/** One step of a paged list: fetching its next page. */
interface PageStep {
  what: string;
  /** The ARM id of the collection the list reads, for its error. */
  id: string;
  page: number;
  pages: AsyncIterator<unknown[], void>;
  onPage: (items: unknown[]) => void;
}

/**
 * Reads paged lists with at most `limit` page requests in flight, highest priority first; a page
 * may add lists. A list whose page fails ends there and its failure joins `errors`; the others go
 * on. Only the caller's signal (or a bug in a page's handler) aborts the reads in flight (through
 * `signal`) and makes `finished()` reject.
 */
class ReadScheduler {
  private readonly queues: { step: PageStep; priority: Priority }[][] = [[], [], [], []];
  private readonly controller = new AbortController();
  private running = 0;
  private done = 0;
  /** Pages known to exist: each list's first page at once, a further page once its request answered. */
  private total = 0;
  private failure: { error: unknown } | undefined;
  /** Lists that failed, one entry each. */
  readonly errors: InventoryError[] = [];
  private settle?: { resolve: () => void; reject: (e: unknown) => void };

  constructor(
    private readonly limit: number,
    outer: AbortSignal | undefined,
    private readonly onProgress?: (done: number, total: number, what: string) => void,
  ) {
    // Every read in flight listens on this signal (the request, and a retry's wait): that is expected, not a leak.
    setMaxListeners(Math.max(10, limit * 4), this.controller.signal);
    if (outer?.aborted) this.fail(outer.reason ?? new Error("the inventory was cancelled"));
    else outer?.addEventListener("abort", () => this.fail(outer.reason ?? new Error("the inventory was cancelled")), { once: true });
  }

  /** Cancelled when the caller's signal is. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Reads a paged list, one page per step. The next step is queued (behind the steps already
   * waiting at this priority) only when a page has arrived, as `nextLink` demands.
   */
  addList<T>(priority: Priority, what: string, id: string, pages: AsyncIterator<T[], void>, onPage: (items: T[]) => void): void {
    this.total += 1;
    this.enqueue(priority, { what, id, page: 1, pages, onPage: onPage as (items: unknown[]) => void });
  }

  private enqueue(priority: Priority, step: PageStep): void {
    if (this.failure) return;
    this.queues[priority].push({ step, priority });
    this.pump();
  }

  finished(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
      this.check();
    });
  }

  private pump(): void {
    while (!this.failure && this.running < this.limit) {
      const queued = this.next();
      if (!queued) break;
      const { step, priority } = queued;
      this.running += 1;
      const label = step.page === 1 ? step.what : `${step.what} (page ${step.page})`;
      step.pages
        .next()
        .then(
          (result) => {
            // The step after a list's last page makes no request; it only ends the list.
            if (this.failure || result.done) return;
            if (step.page > 1) this.total += 1;
            step.onPage(result.value);
            this.done += 1;
            this.onProgress?.(this.done, this.total, label);
            this.enqueue(priority, { ...step, page: step.page + 1 });
          },
          (e: unknown) => {
            if (this.failure) return;
            // The list ends here; what its earlier pages gave is kept. inventoryError rethrows what is not an API failure.
            this.errors.push(inventoryError(step.what, step.id, e));
            if (step.page > 1) this.total += 1;
            this.done += 1;
            this.onProgress?.(this.done, this.total, `${label}: failed`);
          },
        )
        .catch((e: unknown) => this.fail(e))
        .finally(() => {
          this.running -= 1;
          this.pump();
          this.check();
        });
    }
  }

  private next(): { step: PageStep; priority: Priority } | undefined {
    for (const q of this.queues) if (q.length) return q.shift();
    return undefined;
  }

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = { error };
    for (const q of this.queues) q.length = 0;
    this.controller.abort(error);
    this.check();
  }

  private check(): void {
    if (!this.settle || this.running > 0) return;
    if (this.failure) this.settle.reject(this.failure.error);
    else if (this.queues.every((q) => q.length === 0)) this.settle.resolve();
  }
}
