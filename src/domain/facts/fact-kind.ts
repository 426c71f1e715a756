import type { Maybe } from "../../platform/unknown-value";
import type { SourceLocation } from "../../platform/yaml/source-location";
import type { ResidencySubject } from "../residency/residency-subjects";
import type { StackConfig } from "../stack/stack-config";
import type { UnreadEntry } from "../stack/unread-entry";
import type { StateStores } from "../state/state-ports";
import type { Carrier } from "./carrier";
import type { FactClients } from "./fact-clients";
import type { SubjectScope } from "./subject-scope";

/** What gathering a stack's facts from the live services has at hand. */
export interface GatherContext {
  stack: StackConfig;
  /** The stack's name (the key of its kept state: probe results). */
  stackName: string;
  clients: FactClients;
  /** The directory report paths are relative to (the command's working directory). */
  cwd: string;
  /** The stack's kept state (probe results, and the audit trail that dates them). */
  state: Pick<StateStores, "probes" | "audit">;
  /** Reads in flight at once, per kind. */
  concurrency: number;
  signal?: AbortSignal;
  /**
   * One read shared by every kind of this gathering (a database's TDE configuration serves its
   * TDE status and its placement): the first caller's promise, for every caller with the key.
   */
  once<T>(key: string, read: () => Promise<T>): Promise<T>;
  /** A line the report carries (where the facts came from, why some are missing). */
  note(line: string): void;
  /** A warning for stderr (a glob that matches nothing). */
  warn(line: string): void;
  /**
   * The located resources the kinds that locate theirs gather (`FactKind.locates`: the Key Vaults
   * of the TDE protectors), gathered once however many kinds ask: what the placements place
   * beside the stack's databases, Batch AI objects and sites.
   */
  located(): Promise<ResidencySubject[]>;
  /**
   * A resource the stack names that the cloud answered an error for (isAboutOneResource): the kind
   * reports it here, marks its fact `unread` and goes on with the others. Each resource is reported once.
   */
  unread(entry: UnreadEntry): void;
}

/** A resource as the policy pack's analyzer hands it over: its type token, its properties and (in a stack policy) its URN. */
export interface ResourceInput {
  type: string;
  props: Record<string, unknown>;
  urn?: string;
  /**
   * The engine's property dependencies (a stack policy's): for each input, the URNs of the
   * resources whose outputs flow into it, so a value unknown at preview is followed to its source.
   */
  dependsOn?: Record<string, string[]>;
}

/** What building facts from Pulumi resources has at hand. */
export interface ResourceContext {
  /** Reads a property that may be unknown during a preview (the pack's engine marks them). */
  known<T>(read: () => T): Maybe<T>;
  /** The analyzer's clients (the data-residency facts geocode). */
  clients: FactClients;
}

/**
 * One kind of fact the rules judge, declared in one module: what each fact is about, the Pulumi
 * resource that carries it to the policy pack and how the pack builds it from that resource's
 * properties, how it reads in the state a plan leads to and, when it is not read the way the pack
 * reads it, how it is gathered live. Rules name the kinds they need (`RuleDefinition.facts`);
 * `check`, a watch tick and the pack build only those. Register it with one line in `registry.ts`.
 */
export interface FactKind<T = unknown> {
  /** The key of these facts in `ComplianceFacts`: what rules name. */
  key: string;
  /** What these facts are, in a few words (errors, docs). */
  title: string;
  /**
   * What each fact is about (subject-scope.ts): commands take what they need by it, e.g. a TDE
   * repair is judged on the facts about the repaired database only.
   */
  scope: SubjectScope;
  /**
   * The Pulumi resource that brings these facts to the pack: a data source (`defineDataSource`:
   * served by the one data-source provider, registered by the program from the stack) or a
   * resource with a provider of its own (`carrierOf`). The program registers, and the provider
   * plugin serves, every registered kind's data source.
   */
  carrier?: Carrier;
  /**
   * Checked before any kind reads anything: settings this kind will need (a service's endpoint),
   * so a missing one stops the run before a request. Optional.
   */
  prepare?(ctx: GatherContext): Promise<void>;
  /**
   * The facts as they are, read from the services. Optional: without it they are gathered as the
   * pack builds them (carried-gather.ts: each instance of the carrier, a data source, read with its
   * `read`, then `fromResources`), so `check` and the pack cannot disagree. A kind declares its own
   * when its facts are read otherwise: its carrier is no data source (the TDE resource, an artifact
   * scan, the residency section), or gathering reads more cheaply than one read per resource (one
   * list of a server's databases instead of a read of each).
   */
  gather?(ctx: GatherContext): Promise<T[]>;
  /**
   * The facts as they will be once the stack is applied (the pull-request gate, as the pack sees
   * them in `pulumi preview`); `live` gathers them as they are. Default: as they are.
   */
  planned?(ctx: GatherContext, live: () => Promise<T[]>): Promise<T[]>;
  /** The facts of a set of resources in the policy pack; resources of other types add nothing. */
  fromResources(resources: readonly ResourceInput[], ctx: ResourceContext): T[] | Promise<T[]>;
  /**
   * Optional: every resource type `fromResources` builds facts from. The engine asks each resource
   * policy about every resource of a program, so the pack answers at once for a type none of a
   * rule's kinds reads (policies.ts); a kind without it is asked about every type.
   */
  resourceTypes?: readonly string[];
  /**
   * Optional: the subjects of these facts that could not be judged at all (an artifact the service
   * could not scan), each also a not-applicable finding: a run with any is incomplete (exit 1).
   */
  incompleteReads?(facts: readonly T[]): { path: string; error: string }[];
  /**
   * Optional: the located resources among these facts (a vault and its region), which `where` and
   * the placements place in a country; `source` is the stack-file line they are reported at.
   */
  locates?(facts: readonly T[], source?: SourceLocation): ResidencySubject[];
}

/** Declares a fact kind; the identity function, there for the type checking. */
export function defineFactKind<T>(kind: FactKind<T>): FactKind<T> {
  return kind;
}
