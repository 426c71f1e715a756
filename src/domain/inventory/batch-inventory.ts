import {
  batchUsagesId,
  batchWorkspaceId,
  childId,
  leafName,
  oddResourceId,
  parseResourceId,
  providerScope,
  resourceGroupId,
  subscriptionId as subscriptionScope,
  workspaceRefOf,
  type WorkspaceRef,
} from "../../platform/arm/resource-id";
import type { Cluster, Experiment, FileServer, Job, Operation, Usage, Workspace } from "../../services/batchai/types";
import type { InventoryError, InventoryWarning } from "./read-problems";
import { Priority, ReadScheduler } from "./read-scheduler";

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
 * The Batch AI lists of the inventory, page by page (the Batch AI client satisfies it: the domain
 * names no client class).
 */
export interface BatchInventoryReads {
  operationPages(signal?: AbortSignal): AsyncGenerator<Operation[], void, undefined>;
  usagePages(subscriptionId: string, location: string, signal?: AbortSignal): AsyncGenerator<Usage[], void, undefined>;
  workspacePages(subscriptionId: string, signal?: AbortSignal): AsyncGenerator<Workspace[], void, undefined>;
  workspacePagesByResourceGroup(
    subscriptionId: string,
    resourceGroup: string,
    signal?: AbortSignal,
  ): AsyncGenerator<Workspace[], void, undefined>;
  clusterPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<Cluster[], void, undefined>;
  experimentPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<Experiment[], void, undefined>;
  jobPages(ref: WorkspaceRef, experiment: string, signal?: AbortSignal): AsyncGenerator<Job[], void, undefined>;
  fileServerPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<FileServer[], void, undefined>;
}

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
  client: BatchInventoryReads,
  scope: BatchInventoryScope,
  opts: BatchInventoryOptions = {},
): Promise<BatchInventory> {
  const concurrency = opts.concurrency ?? 8;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  if (!scope?.subscriptionId) throw new TypeError("collectBatchInventory: scope.subscriptionId is required");
  const reader = new BatchEstateReader(client, scope.subscriptionId, new ReadScheduler(concurrency, opts.signal, opts.onProgress));
  reader.discoverWorkspaces(scope.resourceGroups);
  reader.readOperations();
  for (const location of uniqueCaseless(scope.locations ?? [])) reader.readUsages(location);
  return reader.inventory();
}

/**
 * One inventory's reads and what they found so far. Each read is a list handed to the scheduler;
 * a list of workspaces adds the lists of their children, a list of experiments those of their jobs.
 */
class BatchEstateReader {
  private readonly operations: Operation[] = [];
  private readonly usages = new Map<string, Usage[]>();
  private readonly workspaces = new Map<string, Workspace>();
  private readonly clusters: Cluster[] = [];
  private readonly experiments: Experiment[] = [];
  private readonly fileServers: FileServer[] = [];
  private readonly jobs: Job[] = [];
  private readonly warnings = new WarningList();

  constructor(
    private readonly client: BatchInventoryReads,
    private readonly sub: string,
    private readonly sched: ReadScheduler,
  ) {}

  /** Lists the workspaces of the subscription, or of each of `resourceGroups`. */
  discoverWorkspaces(resourceGroups: string[] | undefined): void {
    const { sub, sched, client } = this;
    if (!resourceGroups) {
      const what = `workspaces of subscription ${sub}`;
      const id = `${providerScope(subscriptionScope({ subscriptionId: sub }), "BatchAI")}/workspaces`;
      sched.addList(Priority.Discovery, what, id, client.workspacePages(sub, sched.signal), (found) => this.onWorkspaces(found, {}, what));
      return;
    }
    for (const rg of uniqueCaseless(resourceGroups)) {
      const what = `workspaces of resource group ${rg}`;
      const id = `${providerScope(resourceGroupId({ subscriptionId: sub, resourceGroup: rg }), "BatchAI")}/workspaces`;
      sched.addList(Priority.Discovery, what, id, client.workspacePagesByResourceGroup(sub, rg, sched.signal), (found) =>
        this.onWorkspaces(found, { resourceGroup: rg }, what),
      );
    }
  }

  /** Lists the provider's operations. */
  readOperations(): void {
    this.sched.addList(
      Priority.Leaf,
      "operations",
      `${providerScope("", "BatchAI")}/operations`,
      this.client.operationPages(this.sched.signal),
      (page) => pushAll(this.operations, page),
    );
  }

  /** Lists the usages of one location. */
  readUsages(location: string): void {
    const found: Usage[] = [];
    this.usages.set(location.toLowerCase(), found);
    const id = batchUsagesId({ subscriptionId: this.sub, location });
    this.sched.addList(Priority.Leaf, `usages in ${location}`, id, this.client.usagePages(this.sub, location, this.sched.signal), (page) =>
      pushAll(found, page),
    );
  }

  /** Waits for every read, then gives what they found in a stable order. */
  async inventory(): Promise<BatchInventory> {
    await this.sched.finished();
    const usagesByLocation: Record<string, Usage[]> = {};
    for (const loc of [...this.usages.keys()].sort()) usagesByLocation[loc] = sortByKey(this.usages.get(loc)!, (u) => u.name?.value);
    return {
      operations: sortByKey(this.operations, (o) => o.name),
      usages: Object.values(usagesByLocation).flat(),
      usagesByLocation,
      workspaces: sortByKey([...this.workspaces.values()], byId),
      clusters: sortByKey(dedupe(this.clusters), byId),
      experiments: sortByKey(dedupe(this.experiments), byId),
      fileServers: sortByKey(dedupe(this.fileServers), byId),
      jobs: sortByKey(dedupe(this.jobs), byId),
      errors: this.sched.errors.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0)),
      warnings: this.warnings.entries,
    };
  }

  /** A page of workspaces: each new one kept, and its children read when its place is known. */
  private onWorkspaces(found: Workspace[], listedIn: { resourceGroup?: string }, what: string): void {
    for (const ws of found) {
      const id = typeof ws.id === "string" ? ws.id : undefined;
      const ref = id ? workspaceRefOf(id) : undefined;
      const key = ref ? batchWorkspaceId(ref).toLowerCase() : (id?.toLowerCase() ?? `\u0000${this.workspaces.size}`);
      if (this.workspaces.has(key)) continue;
      this.workspaces.set(key, ws);
      const place = ref ?? this.oddWorkspacePlace(ws, id, listedIn, what);
      if (place) this.readWorkspaceChildren(place);
    }
  }

  /**
   * Where a workspace with an odd id sits, warned about either way. Its children can be read only
   * when its place is known: the resource group its odd id still names (Azure's own Workspaces_List
   * example says `/providers/Microsoft.BatchAI/workspace/…`, singular), or the one it was listed in.
   */
  private oddWorkspacePlace(
    ws: Workspace,
    id: string | undefined,
    listedIn: { resourceGroup?: string },
    what: string,
  ): WorkspaceRef | undefined {
    const name = typeof ws.name === "string" && ws.name ? ws.name : undefined;
    const resourceGroup = (id ? parseResourceId(id)?.resourceGroup : undefined) ?? listedIn.resourceGroup;
    if (name && resourceGroup) {
      this.warnings.add(
        what,
        id,
        `${describeItem(ws)} ${oddResourceId(ws) ?? "has an id that names no workspace"}; it is kept, and its children are read by its name in resource group ${resourceGroup}`,
      );
      return { subscriptionId: this.sub, resourceGroup, workspace: name };
    }
    this.warnings.add(
      what,
      id,
      `${describeItem(ws)} ${oddResourceId(ws) ?? "has an id that names no Batch AI workspace (/subscriptions/…/resourceGroups/…/providers/…/workspaces/…)"}; it is kept, but its clusters, experiments, file servers and jobs could not be read`,
    );
    return undefined;
  }

  /** Lists a workspace's experiments (and through them their jobs), clusters and file servers. */
  private readWorkspaceChildren(ref: WorkspaceRef): void {
    const { sched, client } = this;
    const label = `${ref.resourceGroup}/${ref.workspace}`;
    const wsId = batchWorkspaceId(ref);
    const experimentsWhat = `experiments of ${label}`;
    sched.addList(Priority.Experiments, experimentsWhat, `${wsId}/experiments`, client.experimentPages(ref, sched.signal), (found) =>
      this.onExperiments(found, ref, experimentsWhat),
    );
    const clustersWhat = `clusters of ${label}`;
    sched.addList(Priority.Leaf, clustersWhat, `${wsId}/clusters`, client.clusterPages(ref, sched.signal), (page) =>
      this.keep(this.clusters, clustersWhat, page),
    );
    const fileServersWhat = `file servers of ${label}`;
    sched.addList(Priority.Leaf, fileServersWhat, `${wsId}/fileServers`, client.fileServerPages(ref, sched.signal), (page) =>
      this.keep(this.fileServers, fileServersWhat, page),
    );
  }

  /** A page of experiments: kept, and the jobs of each one read (by its name). */
  private onExperiments(found: Experiment[], ref: WorkspaceRef, experimentsWhat: string): void {
    this.keep(this.experiments, experimentsWhat, found);
    const wsId = batchWorkspaceId(ref);
    for (const e of found) {
      const name = experimentName(e);
      if (!name) {
        this.warnings.add(experimentsWhat, undefined, `${describeItem(e)} has neither a usable id nor a name; its jobs could not be read`);
        continue;
      }
      const jobsWhat = `jobs of ${ref.resourceGroup}/${ref.workspace}/${name}`;
      this.sched.addList(
        Priority.Jobs,
        jobsWhat,
        `${childId(wsId, "experiments", name)}/jobs`,
        this.client.jobPages(ref, name, this.sched.signal),
        (page) => this.keep(this.jobs, jobsWhat, page),
      );
    }
  }

  /** Keeps items, noting those whose id is missing or odd (they are kept either way). */
  private keep<T extends object>(into: T[], what: string, items: readonly T[]): void {
    for (const it of items) {
      const odd = oddResourceId(it);
      if (odd) this.warnings.add(what, undefined, `${describeItem(it)} ${odd}; it is kept as the API returned it`);
      into.push(it);
    }
  }
}

/** The inventory's warnings, each said once. */
class WarningList {
  readonly entries: InventoryWarning[] = [];
  private readonly said = new Set<string>();

  add(resource: string, id: string | undefined, message: string): void {
    const key = `${resource}\u0000${id ?? ""}\u0000${message}`;
    if (this.said.has(key)) return;
    this.said.add(key);
    this.entries.push({ resource, ...(id ? { id } : {}), message });
  }
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
