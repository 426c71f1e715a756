import type { SpecPath } from "../schemas/swagger-schemas";
import type { CallTarget } from "./arm-client";

/**
 * One operation of a spec, declared as data, as Azure's generated clients declare theirs (path
 * template, api-version, answer mapper) and share the code that sends it: a service's operations
 * are a table of these rows (`src/services/<api>/operations.ts`), `ArmOperations` sends any row by
 * its name, and a test checks every row against its spec document (the path template exists there
 * with that operationId and method, the api-version is the document's, the answer schema is the
 * operation's, a list is pageable). Adding a read is one row and its spec excerpt in specs/.
 */
export interface ArmOperationRow {
  /** `GET` (the default: a read) or `PUT`. */
  method?: "GET" | "PUT";
  /**
   * The spec's path template, exactly as the document writes it (`/subscriptions/{subscriptionId}/…`).
   * A `?…` after the path is a spec's way to keep two templates apart (`/{roleId}?disambiguation_dummy`)
   * and is not sent.
   */
  path: string;
  /** Path parameters the operation always takes one value of (`{encryptionProtectorName}`: `current`). */
  fixed?: Readonly<Record<string, string>>;
  /**
   * Path parameters sent as they are, not URI-encoded (the spec's `x-ms-skip-url-encoding`: a scope
   * or an id that is itself a path); their leading and trailing slashes are dropped.
   */
  unencoded?: readonly string[];
  /** The api-version sent: the spec document's. */
  apiVersion: string;
  /** The spec document, relative to specs/. */
  spec: SpecPath;
  /** JSON pointer, in the spec, of the schema of the object the operation answers (a list: of one item). */
  schema: string;
  /** A paged list (`x-ms-pageable`): every page is followed (`value` / `nextLink`). */
  list?: true;
  /** Whether the objects are ARM resources, which should carry an `id` (one without is kept, with a warning). Default true. */
  resource?: boolean;
  /** What a bare 404 is restated to name (see `CallTarget`), from the call's parameters. */
  target?: (params: Readonly<Record<string, string>>) => CallTarget;
  /** The TypeScript type of what the operation answers (of one item, for a list): `answer<T>()`. No value at run time. */
  answer: Answer<unknown>;
}

declare const ANSWERS: unique symbol;

/** The type an operation answers, carried by its row for the callers' type checking. */
export interface Answer<T> {
  readonly [ANSWERS]?: T;
}

const NO_VALUE: Answer<never> = Object.freeze({});

/** A row's `answer`: the type of the object it answers (of one item, for a list). */
export function answer<T>(): Answer<T> {
  return NO_VALUE as Answer<T>;
}

/** A service's operations, by their spec operationIds. */
export type ArmOperationTable = Readonly<Record<string, ArmOperationRow>>;

/** Declares a table of operations; the identity function, keeping each path template's literal type (its parameters). */
export function defineArmOperations<const T extends ArmOperationTable>(table: T): T {
  return table;
}

/** The names of a path template's `{parameters}`. */
type TemplateParams<P extends string> = P extends `${string}{${infer K}}${infer Rest}` ? K | TemplateParams<Rest> : never;

/** The parameters a call of a row takes: its path template's, but those the row fixes. */
export type ParamsOf<R> = R extends { path: infer P extends string }
  ? { readonly [K in Exclude<TemplateParams<P>, R extends { fixed: infer F } ? keyof F : never>]: string }
  : never;

/** What a row's operation answers: its object, or every item of its list. */
export type AnswerOf<R> = R extends { answer: Answer<infer T> } ? (R extends { list: true } ? T[] : T) : never;

/** One item of a list row's answer. */
export type ItemOf<R> = R extends { answer: Answer<infer T> } ? T : never;

/** The names of a table's reads (its GET rows). */
export type ReadNames<T> = { [K in keyof T & string]: T[K] extends { method: "PUT" } ? never : K }[keyof T & string];

/** The names of a table's list rows. */
export type ListNames<T> = { [K in keyof T & string]: T[K] extends { list: true } ? K : never }[keyof T & string];
