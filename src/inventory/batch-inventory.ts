import { setMaxListeners } from "node:events";
import type { BatchAiClient } from "../services/batchai/client";
import { leafName, workspaceRefOf } from "../arm/resource-id";
import type { Cluster, Experiment, FileServer, Job, Operation, Usage, Workspace } from "../services/batchai/types";

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
 * The first failure cancels the reads in flight and is rethrown.
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

  const onWorkspaces = (found: Workspace[]) => {
    for (const ws of found) {
      const id = ws.id as string; // the client refuses resources without an id
      if (workspaces.has(id.toLowerCase())) continue;
      workspaces.set(id.toLowerCase(), ws);
      const ref = workspaceRefOf(id);
      if (!ref)
        throw new Error(
          `Workspaces_List returned the id '${id}', which is not a Batch AI workspace id (/subscriptions/…/resourceGroups/…/providers/…/workspaces/…)`,
        );
      const label = `${ref.resourceGroup}/${ref.workspace}`;
      sched.addList(Priority.Experiments, `experiments of ${label}`, client.experimentPages(ref, signal), (found) => {
        pushAll(experiments, found);
        for (const e of found) {
          const name = leafName(e.id as string);
          sched.addList(Priority.Jobs, `jobs of ${label}/${name}`, client.jobPages(ref, name, signal), (page) => pushAll(jobs, page));
        }
      });
      sched.addList(Priority.Leaf, `clusters of ${label}`, client.clusterPages(ref, signal), (page) => pushAll(clusters, page));
      sched.addList(Priority.Leaf, `file servers of ${label}`, client.fileServerPages(ref, signal), (page) => pushAll(fileServers, page));
    }
  };

  const sub = scope.subscriptionId;
  if (scope.resourceGroups) {
    for (const rg of uniqueCaseless(scope.resourceGroups)) {
      sched.addList(
        Priority.Discovery,
        `workspaces of resource group ${rg}`,
        client.workspacePagesByResourceGroup(sub, rg, signal),
        onWorkspaces,
      );
    }
  } else {
    sched.addList(Priority.Discovery, `workspaces of subscription ${sub}`, client.workspacePages(sub, signal), onWorkspaces);
  }
  sched.addList(Priority.Leaf, "operations", client.operationPages(signal), (page) => pushAll(operations, page));
  for (const location of uniqueCaseless(scope.locations ?? [])) {
    const found: Usage[] = [];
    usages.set(location.toLowerCase(), found);
    sched.addList(Priority.Leaf, `usages in ${location}`, client.usagePages(sub, location, signal), (page) => pushAll(found, page));
  }

  await sched.finished();

  const usagesByLocation: Record<string, Usage[]> = {};
  for (const loc of [...usages.keys()].sort()) usagesByLocation[loc] = sortByKey(usages.get(loc)!, (u) => u.name?.value ?? "");
  return {
    operations: sortByKey(operations, (o) => o.name ?? ""),
    usages: Object.values(usagesByLocation).flat(),
    usagesByLocation,
    workspaces: sortByKey([...workspaces.values()], byId),
    clusters: sortByKey(dedupe(clusters), byId),
    experiments: sortByKey(dedupe(experiments), byId),
    fileServers: sortByKey(dedupe(fileServers), byId),
    jobs: sortByKey(dedupe(jobs), byId),
  };
}

/** Pushes without spreading, so a list of any length is safe. */
function pushAll<T>(into: T[], items: readonly T[]): void {
  for (const it of items) into.push(it);
}

/** Drops repeated ids: a list that shifts while it is paged may show an item twice. */
function dedupe<T extends { id?: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((it) => {
    const k = (it.id as string).toLowerCase();
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
function sortByKey<T>(items: readonly T[], keyOf: (t: T) => string): T[] {
  const keyed = items.map((item) => {
    const k = keyOf(item);
    return { item, k, l: k.toLowerCase() };
  });
  keyed.sort((a, b) => (a.l < b.l ? -1 : a.l > b.l ? 1 : a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return keyed.map((e) => e.item);
}
const byId = (r: { id?: string }) => r.id ?? "";

/** One step of a paged list: fetching its next page. */
interface PageStep {
  what: string;
  page: number;
  pages: AsyncIterator<unknown[], void>;
  onPage: (items: unknown[]) => void;
}

/**
 * Reads paged lists with at most `limit` page requests in flight, highest priority first; a page
 * may add lists. The first failure aborts the reads in flight (through `signal`) and `finished()`
 * rejects with it.
 */
class ReadScheduler {
  private readonly queues: { step: PageStep; priority: Priority }[][] = [[], [], [], []];
  private readonly controller = new AbortController();
  private running = 0;
  private done = 0;
  /** Pages known to exist: each list's first page at once, a further page once its request answered. */
  private total = 0;
  private failure: { error: unknown } | undefined;
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

  /** Cancelled when the caller's signal is, or when a read fails. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Reads a paged list, one page per step. The next step is queued (behind the steps already
   * waiting at this priority) only when a page has arrived, as `nextLink` demands.
   */
  addList<T>(priority: Priority, what: string, pages: AsyncIterator<T[], void>, onPage: (items: T[]) => void): void {
    this.total += 1;
    this.enqueue(priority, { what, page: 1, pages, onPage: onPage as (items: unknown[]) => void });
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
      step.pages
        .next()
        .then((result) => {
          // The step after a list's last page makes no request; it only ends the list.
          if (this.failure || result.done) return;
          if (step.page > 1) this.total += 1;
          step.onPage(result.value);
          this.done += 1;
          this.onProgress?.(this.done, this.total, step.page === 1 ? step.what : `${step.what} (page ${step.page})`);
          this.enqueue(priority, { ...step, page: step.page + 1 });
        })
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
