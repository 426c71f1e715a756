import { ApiError, type ApiResponse, type Logger, type RequestSpec, loggerFromEnv } from "../http";
import { noteDrift } from "../schemas/schema-drift";
import { definitionValidator, type SchemaCheck, type SpecPath } from "../schemas/swagger-schemas";
import type { ArmClientOptions, ResponseValidation } from "./arm-client-options";
import { armPages } from "./arm-paging";
import type { ArmRead, ReadReceipt } from "./arm-read";
import { armTransport, type ArmTransport } from "./arm-transport";
import { oddResourceId, pathStyle, type IdStyle } from "./resource-id";

export type { ArmClientOptions, ResponseValidation } from "./arm-client-options";
export type { ArmRead, ReadReceipt } from "./arm-read";
export { ARM_SAFE_NAMES, ArmTransport, armTransport } from "./arm-transport";

/** Response checks under `sample` validation (see ResponseValidation): every one of the first, then one in so many. */
const FULL_CHECKS = 100;
const SAMPLE_EVERY = 20;

/** One operation of a spec, as a client calls it. */
export interface ArmOperation {
  /** The spec's operationId: the operation's name in errors and logs. */
  id: string;
  /** JSON pointer, in the spec, of the schema of one object the operation returns (a list's item). */
  schema: string;
  /** Whether those objects are ARM resources, which should carry an `id` (one without is kept, with a warning). Default true. */
  resource?: boolean;
}

/** What a call points at, so a bare 404 can be restated to name it. */
export interface CallTarget {
  label: string;
  /** Names a clear 404 message mentions (`'name'`); when none does, the message is restated. */
  names: string[];
  /** What to do about it, appended to a restated message. */
  hint?: string;
}

/**
 * The plumbing every ARM client shares, so a service's client is a table of paths and operations.
 * Strict in what it sends (the spec's paths and api-version), tolerant in what it receives: objects
 * are checked against the spec to learn (drift is logged once, `null` counts as absent) and handed on
 * unchanged. Only what cannot be used at all is refused: a body that is not an object. A resource
 * whose `id` is missing or odd is kept as the API returned it, with one warning per resource; a
 * list item that is not an object is dropped, with a warning, so one bad item never fails the list.
 * Lists are pages (one request a step) plus `collect` for the whole list.
 */
export class ArmClient {
  protected readonly http: ArmTransport;
  protected readonly logger: Logger;
  /** The style of request paths: the configured namespace spelling, segments encoded. */
  protected readonly paths: IdStyle;
  private readonly validation: ResponseValidation;
  /** Objects checked so far, per operation, for sampling. */
  private readonly checked = new Map<string, number>();
  /** Odd-data warnings already given, so each resource is warned about once. */
  private readonly noticed = new Set<string>();

  constructor(
    opts: ArmClientOptions,
    private readonly api: { apiVersion: string; spec: SpecPath },
  ) {
    this.logger = opts.logger ?? loggerFromEnv();
    this.http = armTransport({ ...opts, logger: this.logger }, api.apiVersion);
    this.paths = pathStyle(opts.naming ?? "real");
    this.validation = opts.validation ?? "sample";
  }

  /** GETs (or PUTs) one object. */
  protected single<T>(
    op: ArmOperation,
    path: string,
    opts: { method?: "GET" | "PUT"; json?: unknown; target?: CallTarget; signal?: AbortSignal } = {},
  ): Promise<T> {
    const spec: RequestSpec = { operation: op.id, method: opts.method ?? "GET", path, json: opts.json, signal: opts.signal };
    // `then`, not an async function: one promise less on the path every GET takes.
    return this.http.json<unknown>(spec).then(
      (body) => {
        if (!isObject(body))
          throw this.unusable(
            spec,
            `the response is ${describeNonObject(body)}, not an object; the service or a proxy in between answered something unusable`,
          );
        this.accept(op, body, spec, "the response");
        return body as T;
      },
      (e: unknown) => {
        throw opts.target ? clarifyNotFound(e, opts.target) : e;
      },
    );
  }

  /**
   * GETs one object, as `single` does, and keeps the receipt of the read (when, which operation,
   * Resource Manager's request id): what an evidence bundle shows beside each fact.
   */
  protected singleRead<T>(op: ArmOperation, path: string, opts: { target?: CallTarget; signal?: AbortSignal } = {}): Promise<ArmRead<T>> {
    const spec: RequestSpec = { operation: op.id, method: "GET", path, signal: opts.signal };
    return this.http.jsonResponse<unknown>(spec).then(
      (res) => {
        const body = res.body;
        if (!isObject(body))
          throw this.unusable(
            spec,
            `the response is ${describeNonObject(body)}, not an object; the service or a proxy in between answered something unusable`,
          );
        this.accept(op, body, spec, "the response");
        return { value: body as T, receipt: receiptOf(op, path, this.api.apiVersion, res) };
      },
      (e: unknown) => {
        throw opts.target ? clarifyNotFound(e, opts.target) : e;
      },
    );
  }

  /**
   * Every page of a list, checked as `pages` checks them, with the receipt of the read: the list's
   * path, its first page's request ids (the request that names the list) and when its last page
   * arrived. What an evidence bundle shows beside facts taken out of a list.
   */
  protected async listRead<T>(
    op: ArmOperation,
    path: string,
    opts: { target?: CallTarget; signal?: AbortSignal } = {},
  ): Promise<ArmRead<T[]>> {
    let first: ApiResponse<unknown> | undefined;
    const value: T[] = [];
    for await (const page of this.pages<T>(op, path, { ...opts, onResponse: (res) => (first ??= res) })) value.push(...page);
    return { value, receipt: receiptOf(op, path, this.api.apiVersion, first!) };
  }

  /** Follows a list's `nextLink`s, one page (one request) a step, checking each item; `onResponse` sees each page's whole answer. */
  protected async *pages<T>(
    op: ArmOperation,
    path: string,
    opts: { target?: CallTarget; signal?: AbortSignal; onResponse?: (res: ApiResponse<unknown>) => void } = {},
  ): AsyncGenerator<T[], void, undefined> {
    const spec: RequestSpec = { operation: op.id, method: "GET", path, signal: opts.signal };
    const onResponse = opts.onResponse;
    const pages = onResponse
      ? armPages<unknown>(
          {
            json: <U>(s: RequestSpec) => this.http.jsonResponse<U>(s).then((res) => (onResponse(res), res.body)),
            displayUrl: (s: RequestSpec) => this.http.displayUrl(s),
          },
          spec,
        )
      : this.http.pages<unknown>(spec);
    let page = 0;
    while (true) {
      let next: IteratorResult<unknown[], void>;
      try {
        next = await pages.next();
      } catch (e) {
        throw opts.target ? clarifyNotFound(e, opts.target) : e;
      }
      if (next.done) return;
      page += 1;
      const items = next.value;
      let kept: unknown[] = items;
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (!isObject(item)) {
          if (kept === items) kept = items.slice(0, i);
          this.notice(
            `${op.id} ${spec.path} ${page} ${i}`,
            `${op.id}: item ${i} of page ${page} of ${this.http.displayUrl(spec)} is ${describeNonObject(item, true)}, not an object; it was skipped, the rest of the list is kept`,
          );
          continue;
        }
        if (kept !== items) kept.push(item);
        this.accept(op, item, spec, `item ${i} of the list`);
      }
      yield kept as T[];
    }
  }

  /** Notes a resource without a usable id (once per resource) and drift from the spec (sampled). Never throws. */
  private accept(op: ArmOperation, body: object, spec: RequestSpec, what: string): void {
    if (op.resource !== false) {
      const odd = oddResourceId(body);
      if (odd) {
        const kind = op.schema.slice(op.schema.lastIndexOf("/") + 1);
        const name = (body as { name?: unknown }).name;
        const named = typeof name === "string" ? ` named '${name}'` : "";
        this.notice(
          `${op.id} ${spec.path} ${typeof name === "string" ? name : what} ${odd}`,
          `${op.id}: ${what} of ${this.http.displayUrl(spec)}: a ${kind}${named} ${odd}; it is kept as the API returned it`,
        );
      }
    }
    if (this.validation === "off") return;
    if (this.validation === "sample") {
      const n = this.checked.get(op.id) ?? 0;
      this.checked.set(op.id, n + 1);
      if (n >= FULL_CHECKS && n % SAMPLE_EVERY !== 0) return;
    }
    noteDrift(op.id, validatorFor(this.api.spec, op.schema), body, this.logger);
  }

  /** A warning about odd data, once per key (a resource polled again does not warn again). */
  private notice(key: string, line: string): void {
    if (this.noticed.has(key)) return;
    if (this.noticed.size >= MAX_NOTICES) this.noticed.clear();
    this.noticed.add(key);
    this.logger.warn(line);
  }

  private unusable(spec: RequestSpec, message: string): ApiError {
    return new ApiError({
      operation: spec.operation,
      status: 200,
      code: "InvalidResponse",
      message,
      method: spec.method,
      url: this.http.displayUrl(spec),
    });
  }
}

/** Warnings a client remembers having given (bounded, so a long-lived process does not grow it for ever). */
const MAX_NOTICES = 10_000;

function isObject(v: unknown): v is object {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

function describeNonObject(v: unknown, item = false): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "string" && !item ? "a body that is not JSON" : `a ${typeof v}`;
}

/** Collects every page of a list into one array. */
export async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) for (const item of page) out.push(item);
  return out;
}

/** The compiled check of one schema of a spec (compiled and kept by swagger-schemas, once per process). */
export const validatorFor: (spec: SpecPath, pointer: string) => (data: unknown) => SchemaCheck = definitionValidator;

/**
 * A 404 whose message does not say what was missing (a gateway's bare "Not Found", or an RP
 * message about something else) is restated so that it names the resource asked for.
 */
function clarifyNotFound(e: unknown, target: CallTarget): unknown {
  if (!(e instanceof ApiError) || e.status !== 404) return e;
  const detail = e.detail.toLowerCase();
  if (target.names.some((n) => detail.includes(`'${n.toLowerCase()}'`) || detail.includes(`/${n.toLowerCase()}'`))) return e;
  return e.restate({ message: `${target.label} was not found (${e.detail}).${target.hint ? ` ${target.hint}` : ""}` });
}

/**
 * The receipt of a read: its operation, path without the query, api-version, when it arrived and the
 * call's ids (the ids only when present). Built field by field, not from spreads: one object per read.
 */
function receiptOf(op: ArmOperation, path: string, apiVersion: string, res: ApiResponse<unknown>): ReadReceipt {
  const q = path.indexOf("?");
  const receipt: ReadReceipt = {
    operation: op.id,
    path: q < 0 ? path : path.slice(0, q),
    apiVersion,
    readAt: new Date().toISOString(),
    status: res.status,
  };
  if (res.requestId !== undefined) receipt.requestId = res.requestId;
  if (res.clientRequestId !== undefined) receipt.clientRequestId = res.clientRequestId;
  return receipt;
}
