import { setMaxListeners } from "node:events";
import type { BatchAiClient } from "../services/batchai/client";
import { leafName, workspaceRefOf } from "../services/batchai/resource-ids";
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

/** Scheduling priorities: reads that unlock more reads go first; among leaves, the longer lists (jobs) first. */
const Priority = { Discovery: 0, Experiments: 1, Jobs: 2, Leaf: 3 } as const;
type Priority = (typeof Priority)[keyof typeof Priority];

/**
 * Reads the whole Batch AI estate of a subscription: the provider's operations, the usages of each
 * location, the workspaces (of the subscription, or of the listed resource groups), and for each
 * workspace its clusters, experiments and file servers, and for each experiment its jobs. Every
 * list is followed to its last page. At most `concurrency` reads are in flight; a read that
 * unlocks others is started first, so the dependent job listings (sequential pages) start early.
 * The first failure cancels the reads in flight and is rethrown.
 */
export async function collectBatchInventory(client: BatchAiClient, scope: BatchInventoryScope, opts: BatchInventoryOptions = {}): Promise<BatchInventory> {
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
      if (!ref) throw new Error(`Workspaces_List returned the id '${id}', which is not a Batch AI workspace id (/subscriptions/…/resourceGroups/…/providers/…/workspaces/…)`);
      const label = `${ref.resourceGroup}/${ref.workspace}`;
      sched.add(Priority.Experiments, `experiments of ${label}`, () => client.listExperiments(ref, signal), (found) => {
        experiments.push(...found);
        for (const e of found) {
          const name = leafName(e.id as string);
          sched.add(Priority.Jobs, `jobs of ${label}/${name}`, () => client.listJobs(ref, name, signal), (list) => pushAll(jobs, list));
        }
      });
      sched.add(Priority.Leaf, `clusters of ${label}`, () => client.listClusters(ref, signal), (list) => pushAll(clusters, list));
      sched.add(Priority.Leaf, `file servers of ${label}`, () => client.listFileServers(ref, signal), (list) => pushAll(fileServers, list));
    }
  };

  const sub = scope.subscriptionId;
  if (scope.resourceGroups) {
    for (const rg of uniqueCaseless(scope.resourceGroups)) {
      sched.add(Priority.Discovery, `workspaces of resource group ${rg}`, () => client.listWorkspacesByResourceGroup(sub, rg, signal), onWorkspaces);
    }
  } else {
    sched.add(Priority.Discovery, `workspaces of subscription ${sub}`, () => client.listWorkspaces(sub, signal), onWorkspaces);
  }
  sched.add(Priority.Leaf, "operations", () => client.listOperations(signal), (list) => pushAll(operations, list));
  for (const location of uniqueCaseless(scope.locations ?? [])) {
    sched.add(Priority.Leaf, `usages in ${location}`, () => client.listUsages(sub, location, signal), (list) => usages.set(location.toLowerCase(), list));
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
  const keyed = items.map((item) => { const k = keyOf(item); return { item, k, l: k.toLowerCase() }; });
  keyed.sort((a, b) => (a.l < b.l ? -1 : a.l > b.l ? 1 : a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return keyed.map((e) => e.item);
}
const byId = (r: { id?: string }) => r.id ?? "";

interface Task {
  what: string;
  run: () => Promise<unknown>;
  then: (result: never) => void;
}

/**
 * Runs reads with at most `limit` in flight, highest priority first; tasks may add tasks. The
 * first failure aborts the reads in flight (through `signal`) and `finished()` rejects with it.
 */
class ReadScheduler {
  private readonly queues: Task[][] = [[], [], [], []];
  private readonly controller = new AbortController();
  private running = 0;
  private done = 0;
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

  add<T>(priority: Priority, what: string, run: () => Promise<T>, then: (result: T) => void): void {
    if (this.failure) return;
    this.total += 1;
    this.queues[priority].push({ what, run, then: then as (r: never) => void });
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
      const task = this.next();
      if (!task) break;
      this.running += 1;
      task.run().then((result) => {
        if (this.failure) return;
        task.then(result as never);
        this.done += 1;
        this.onProgress?.(this.done, this.total, task.what);
      }).catch((e: unknown) => this.fail(e)).finally(() => {
        this.running -= 1;
        this.pump();
        this.check();
      });
    }
  }

  private next(): Task | undefined {
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
