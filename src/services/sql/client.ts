import { ApiError, type HttpTransport, type Logger, type RequestSpec, loggerFromEnv, redactUrl } from "../../http";
import { definitionValidator, responseValidator, type SchemaCheck } from "../../specs/swagger-schemas";
import { armTransport, seg, type ArmClientOptions } from "../arm-client";
import { providerNamespace } from "../provider-namespace";
import { noteSchemaDrift } from "../response-check";
import {
  SQL_API_VERSION,
  SQL_OPERATIONS,
  SQL_SPEC,
  TDE_CONFIGURATION_NAME,
  type DatabaseRef,
  type ElasticPoolActivity,
  type ElasticPoolDatabaseActivity,
  type ElasticPoolRef,
  type ServiceTierAdvisor,
  type SqlOperation,
  type TransparentDataEncryption,
  type TransparentDataEncryptionActivity,
  type TransparentDataEncryptionPutBody,
  type TransparentDataEncryptionStatus,
} from "./types";

/**
 * A typed client for the SQL slice at api-version 2014-04-01: service tier advisors, elastic pool
 * (database) activity, and transparent data encryption with its scan results.
 *
 * Strict in what it sends (paths, api-version and bodies as the spec has them), tolerant in what it
 * receives: responses are checked against the published schema and a mismatch is logged once, never
 * refused. Only what cannot be used is refused: a resource object without an `id`, or a body that is
 * not JSON (the transport's `InvalidResponse`). Resource objects are handed on unchanged.
 */
export class SqlClient {
  private readonly http: HttpTransport;
  private readonly logger: Logger;
  /** `/providers/Microsoft.Sql` (or `Provider.Sql` when `naming: "described"`). */
  private readonly provider: string;

  constructor(opts: ArmClientOptions) {
    this.logger = opts.logger ?? loggerFromEnv();
    this.http = armTransport({ ...opts, logger: this.logger }, SQL_API_VERSION);
    this.provider = `/providers/${providerNamespace("Sql", opts.naming)}`;
  }

  /** ServiceTierAdvisors_ListByDatabase: every service tier advisor of a database (usually one, `Current`). */
  listServiceTierAdvisors(db: DatabaseRef, signal?: AbortSignal): Promise<ServiceTierAdvisor[]> {
    return this.list(SQL_OPERATIONS.listServiceTierAdvisors, `${this.databasePath(db)}/serviceTierAdvisors`, signal);
  }

  /** ServiceTierAdvisors_Get: one service tier advisor of a database, by name (the published example uses `Current`). */
  getServiceTierAdvisor(db: DatabaseRef, name: string, signal?: AbortSignal): Promise<ServiceTierAdvisor> {
    return this.single(
      SQL_OPERATIONS.getServiceTierAdvisor,
      "GET",
      `${this.databasePath(db)}/serviceTierAdvisors/${seg(name)}`,
      undefined,
      signal,
    );
  }

  /** ElasticPoolActivities_ListByElasticPool: the operations on an elastic pool. */
  listElasticPoolActivities(pool: ElasticPoolRef, signal?: AbortSignal): Promise<ElasticPoolActivity[]> {
    return this.list(SQL_OPERATIONS.listElasticPoolActivities, `${this.poolPath(pool)}/elasticPoolActivity`, signal);
  }

  /** ElasticPoolDatabaseActivities_ListByElasticPool: the operations on databases inside an elastic pool. */
  listElasticPoolDatabaseActivities(pool: ElasticPoolRef, signal?: AbortSignal): Promise<ElasticPoolDatabaseActivity[]> {
    return this.list(SQL_OPERATIONS.listElasticPoolDatabaseActivities, `${this.poolPath(pool)}/elasticPoolDatabaseActivity`, signal);
  }

  /** TransparentDataEncryptions_Get: a database's TDE configuration (`current`). */
  getTransparentDataEncryption(db: DatabaseRef, signal?: AbortSignal): Promise<TransparentDataEncryption> {
    return this.single(SQL_OPERATIONS.getTransparentDataEncryption, "GET", this.tdePath(db), undefined, signal);
  }

  /**
   * TransparentDataEncryptions_CreateOrUpdate: sets a database's TDE status. The answer already carries
   * the new status; the encryption or decryption scan it starts shows in
   * `listTransparentDataEncryptionActivities` until it has finished.
   */
  putTransparentDataEncryption(
    db: DatabaseRef,
    status: TransparentDataEncryptionStatus,
    signal?: AbortSignal,
  ): Promise<TransparentDataEncryption> {
    const body: TransparentDataEncryptionPutBody = { properties: { status } };
    return this.single(SQL_OPERATIONS.putTransparentDataEncryption, "PUT", this.tdePath(db), body, signal);
  }

  /** TransparentDataEncryptionActivities_ListByConfiguration: the running scan of a database, if any (empty once it has finished). */
  listTransparentDataEncryptionActivities(db: DatabaseRef, signal?: AbortSignal): Promise<TransparentDataEncryptionActivity[]> {
    return this.list(SQL_OPERATIONS.listTransparentDataEncryptionActivities, `${this.tdePath(db)}/operationResults`, signal);
  }

  private serverPath(r: { subscriptionId: string; resourceGroup: string; server: string }): string {
    return `/subscriptions/${seg(r.subscriptionId)}/resourceGroups/${seg(r.resourceGroup)}${this.provider}/servers/${seg(r.server)}`;
  }

  private databasePath(db: DatabaseRef): string {
    return `${this.serverPath(db)}/databases/${seg(db.database)}`;
  }

  private poolPath(pool: ElasticPoolRef): string {
    return `${this.serverPath(pool)}/elasticPools/${seg(pool.elasticPool)}`;
  }

  private tdePath(db: DatabaseRef): string {
    return `${this.databasePath(db)}/transparentDataEncryption/${TDE_CONFIGURATION_NAME}`;
  }

  private async single<T>(operation: SqlOperation, method: "GET" | "PUT", path: string, json: unknown, signal?: AbortSignal): Promise<T> {
    const spec: RequestSpec = { operation, method, path, json, signal };
    const body = await this.http.json<unknown>(spec);
    this.requireResource(spec, body, "the response");
    noteDrift(operation, checkerFor(operation), body, this.logger);
    return body as T;
  }

  /** Collects a list, following `nextLink` should one ever come (2014-04-01 sends none). */
  private async list<T>(operation: SqlOperation, path: string, signal?: AbortSignal): Promise<T[]> {
    const spec: RequestSpec = { operation, method: "GET", path, signal };
    const items = await this.http.list<unknown>(spec);
    const check = checkerFor(operation);
    for (let i = 0; i < items.length; i++) {
      this.requireResource(spec, items[i], `item ${i} of the list`);
      noteDrift(operation, check, items[i], this.logger);
    }
    return items as T[];
  }

  /** Refuses what cannot be used: a resource object must be an object with a string `id`. */
  private requireResource(spec: RequestSpec, value: unknown, what: string): void {
    if (
      value &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      typeof (value as { id?: unknown }).id === "string" &&
      (value as { id: string }).id
    )
      return;
    const got =
      value === null
        ? "null"
        : Array.isArray(value)
          ? "an array"
          : typeof value !== "object"
            ? `a ${typeof value}`
            : 'an object without an "id"';
    throw new ApiError({
      operation: spec.operation,
      status: 200,
      code: "InvalidResponse",
      method: spec.method,
      url: redactUrl(this.http.urlOf(spec)),
      message: `${what} is ${got}, not a resource object with an "id"; the service or a proxy in between answered something unusable`,
    });
  }
}

type Checker = (data: unknown) => SchemaCheck;
const checkers = new Map<SqlOperation, Checker>();

/** Items of lists are checked against the item definition; single objects against the operation's 200 schema. */
const LIST_ITEM_DEFINITIONS: Partial<Record<SqlOperation, string>> = {
  [SQL_OPERATIONS.listServiceTierAdvisors]: "/definitions/ServiceTierAdvisor",
  [SQL_OPERATIONS.listElasticPoolActivities]: "/definitions/ElasticPoolActivity",
  [SQL_OPERATIONS.listElasticPoolDatabaseActivities]: "/definitions/ElasticPoolDatabaseActivity",
  [SQL_OPERATIONS.listTransparentDataEncryptionActivities]: "/definitions/TransparentDataEncryptionActivity",
};

/** The schema check of an operation's resource objects, compiled once per process. */
function checkerFor(operation: SqlOperation): Checker {
  let c = checkers.get(operation);
  if (!c) {
    const item = LIST_ITEM_DEFINITIONS[operation];
    c = item ? definitionValidator(SQL_SPEC, item) : responseValidator(SQL_SPEC, operation);
    checkers.set(operation, c);
  }
  return c;
}

/** Logs schema drift; `null` counts as absent (services send it for "not available"), so only real drift is noted. */
function noteDrift(operation: string, check: Checker, value: unknown, logger: Logger): void {
  const first = check(value);
  if (first.valid) return;
  noteSchemaDrift(operation, check(withoutNulls(value)), logger);
}

/** A copy without `null` members (the original is left as it is). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(withoutNulls);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v);
    return out;
  }
  return value;
}
