import type { DatabaseInventory, WatchedDatabase } from "./database-inventory";

/** Rows per page when the query names no `size`. */
export const DEFAULT_PAGE_SIZE = 50;
/** The largest `size` a query may ask for. */
export const MAX_PAGE_SIZE = 500;
/** The longest `q` (text) a query may give. */
export const MAX_QUERY_TEXT = 200;

const SYNC_STATES = ["in-sync", "drifted", "unknown"] as const;
const COMPLIANCE_STATES = ["compliant", "non-compliant", "unknown"] as const;

/** What the stack's page and `/api/v1/stacks/{name}/databases` filter by, and which page they show. Absent filters are null. */
export interface DatabaseQuery {
  sync: WatchedDatabase["sync"] | null;
  compliance: WatchedDatabase["compliance"] | null;
  /** A server's name, matched whole (case-insensitive). */
  server: string | null;
  /** Text found anywhere in the database's `rg/server/database` (case-insensitive). */
  q: string | null;
  /** 1 for the first. */
  page: number;
  size: number;
}

/** The parameters a database query reads (any other is refused, so a misspelt one is not silently ignored). */
export const DATABASE_QUERY_PARAMETERS = ["sync", "compliance", "server", "q", "page", "size"] as const;

/** A query parameter that cannot be read: named, with why, in one line. */
export class DatabaseQueryError extends Error {
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a database query from an address's parameters; an empty value is no filter (what a form's
 * "any" sends). Throws a DatabaseQueryError naming the parameter for an unknown parameter, a value
 * out of its set, or a page or size that is not a whole number in range. `ignore`: parameters
 * handled elsewhere (the sign-in token).
 */
export function parseDatabaseQuery(params: URLSearchParams, ignore: readonly string[] = []): DatabaseQuery {
  const known = new Set<string>([...DATABASE_QUERY_PARAMETERS, ...ignore]);
  for (const name of new Set(params.keys()))
    if (!known.has(name))
      throw new DatabaseQueryError(name, `unknown parameter ${JSON.stringify(name)}: expected ${DATABASE_QUERY_PARAMETERS.join(", ")}`);
  const one = (name: string): string | null => {
    const all = params.getAll(name);
    if (all.length > 1) throw new DatabaseQueryError(name, `parameter ${name} is given ${all.length} times: give it once`);
    const v = all[0]?.trim();
    return v ? v : null;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[]): T | null => {
    const v = one(name);
    if (v === null || (allowed as readonly string[]).includes(v)) return v as T | null;
    throw new DatabaseQueryError(name, `parameter ${name} is ${JSON.stringify(v)}: expected one of ${allowed.join(", ")}`);
  };
  const whole = (name: string, fallback: number, max: number): number => {
    const v = one(name);
    if (v === null) return fallback;
    const n = /^\d{1,9}$/.test(v) ? Number(v) : NaN;
    if (!(n >= 1 && n <= max))
      throw new DatabaseQueryError(name, `parameter ${name} is ${JSON.stringify(v)}: expected a whole number from 1 to ${max}`);
    return n;
  };
  const q = one("q");
  if (q !== null && q.length > MAX_QUERY_TEXT)
    throw new DatabaseQueryError("q", `parameter q is ${q.length} characters long: at most ${MAX_QUERY_TEXT}`);
  return {
    sync: oneOf("sync", SYNC_STATES),
    compliance: oneOf("compliance", COMPLIANCE_STATES),
    server: one("server"),
    q,
    page: whole("page", 1, 1_000_000_000),
    size: whole("size", DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
  };
}

/** One page of a stack's databases, as filtered. */
export interface DatabasePage {
  query: DatabaseQuery;
  /** Databases the filters keep. */
  total: number;
  /** Databases before filtering. */
  unfiltered: number;
  /** Pages of `total` (at least 1). */
  pages: number;
  /** The page's rows: empty past the last page. */
  items: readonly WatchedDatabase[];
}

/** Whether a query filters at all. */
export function isFiltered(q: DatabaseQuery): boolean {
  return q.sync !== null || q.compliance !== null || q.server !== null || q.q !== null;
}

/**
 * The page a query asks for: one pass over the rows that counts what the filters keep and keeps
 * only the page's own rows (references, not copies), so a request over 10,000 rows allocates a page.
 */
export function databasePage(inv: DatabaseInventory | undefined, query: DatabaseQuery): DatabasePage {
  const rows = inv?.rows ?? [];
  const from = (query.page - 1) * query.size;
  const to = from + query.size;
  const server = query.server?.toLowerCase() ?? null;
  const text = query.q?.toLowerCase() ?? null;
  const items: WatchedDatabase[] = [];
  let total = 0;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (query.sync !== null && r.sync !== query.sync) continue;
    if (query.compliance !== null && r.compliance !== query.compliance) continue;
    if (server !== null && r.server.toLowerCase() !== server) continue;
    if (text !== null && !inv!.search[i].includes(text)) continue;
    if (total >= from && total < to) items.push(r);
    total++;
  }
  return { query, total, unfiltered: rows.length, pages: Math.max(1, Math.ceil(total / query.size)), items };
}

/** The query's parameters as an address's (`sync=drifted&page=2`), without those at their default; `page` replaced when given. */
export function queryString(q: DatabaseQuery, page = q.page): string {
  const p = new URLSearchParams();
  if (q.sync) p.set("sync", q.sync);
  if (q.compliance) p.set("compliance", q.compliance);
  if (q.server) p.set("server", q.server);
  if (q.q) p.set("q", q.q);
  if (q.size !== DEFAULT_PAGE_SIZE) p.set("size", String(q.size));
  if (page !== 1) p.set("page", String(page));
  return p.toString();
}
