import type { AccessTokens } from "./access-tokens";
import type { ThrottlingSettings } from "./arm-throttling";
import type { EmulatorApp, EmulatorReply, Handler, Method } from "./emulator-app";
import type { PublishedOperation } from "./published-operations";

/** Settings every local implementation may read; they can change at run time through the admin API. */
export interface EmulatorSettings {
  /** Items per page of an ARM list that pages. */
  pageSize: number;
  /** Lifetime of the access tokens the IMDS issues, in seconds. */
  tokenTtlSeconds: number;
  /** Resource Manager's request throttling (arm-throttling.ts); absent: off (the default). */
  throttling?: ThrottlingSettings;
  /** How many entries the Activity Log keeps (the newest); default 10,000. */
  activityLogCapacity?: number;
  /** Entries per page of the Activity Log's list; default 200. */
  activityLogPageSize?: number;
  /** Multiplies Event Grid's retry schedule (and its time to live): 0.001 turns 10 s into 10 ms, for tests; default 1. */
  eventGridRetryTimeScale?: number;
}

/** Answers the emulator gives on its own: an injected fault, a path or method no route serves, a JSON body that does not parse. */
export type EmulatorErrorKind = "fault" | "no-route" | "invalid-body";

/** What the emulator hands a local implementation when it mounts it. */
export interface ServiceContext<S> {
  /** This service's state: plain JSON data, persisted with `--state`. */
  state(): S;
  /**
   * Call after every change to the state, so it is persisted. With `--state`, naming the place
   * that changed (keys and indexes within this service's state, e.g. `"servers", 0, "databases", 3`)
   * journals just that part; without a path, the whole service state is journaled.
   */
  changed(...path: (string | number)[]): void;
  tokens: AccessTokens;
  settings: EmulatorSettings;
  app: EmulatorApp;
  /**
   * Registers an ARM route: bearer token required, api-version checked against the published
   * operation's versions (publishedOperation()) and each answer cut to that version's shape, or, for
   * an API whose versions are not recorded under specs/api-versions/ (a service of an organisation's
   * own), against a plain list.
   */
  arm(method: Method, path: string, operation: PublishedOperation | readonly string[], handler: Handler): void;
}

/**
 * A seeded API's local implementation, mounted by the emulator. It lives in
 * `src/emulator/services/<name>/`; it may use its service's types from `src/services/<name>/`, but
 * nothing outside the emulator imports it, so clients never ship emulator code.
 */
export interface LocalService<S = unknown, Seed = unknown> {
  /** Key of its section in the seed YAML and in the persisted state. */
  readonly name: string;
  /** JSON Schema of its seed section (validated before anything starts). */
  readonly seedSchema: object;
  /** Builds the initial state from the seed section (undefined when the seed has none). */
  initialState(seed: Seed | undefined): S;
  mount(ctx: ServiceContext<S>): void;
  /**
   * Optional: the emulator's own answer (see EmulatorErrorKind) for a path this service owns, in
   * the service's error form; undefined leaves it to the emulator (ARM's `{ error: { code, message } }`).
   * The emulator adds its headers (Retry-After) to the reply.
   */
  errorReply?(path: string, status: number, kind: EmulatorErrorKind): EmulatorReply | undefined;
}
