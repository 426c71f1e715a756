import { ArmClient, collect, type ArmClientOptions, type ArmOperation, type ArmRead, type CallTarget } from "./arm-client";
import type { AnswerOf, ArmOperationRow, ArmOperationTable, ItemOf, ListNames, ParamsOf, ReadNames } from "./arm-operation";
import { failedReadOf, type FailedRead } from "./failed-read";
import { providerNamespace, type ArmService, type NamingStyle } from "./provider-namespace";

/** The namespaces a client may spell otherwise (`STACKWARDEN_PROVIDER_NAMES=described`: `Provider.Sql`). */
const RENAMED: readonly ArmService[] = ["Sql", "BatchAI"];

/** A row made ready to send: its path template cut at its parameters, the client of its api-version and document. */
interface ReadyRow {
  row: ArmOperationRow;
  op: ArmOperation;
  client: RowClient;
  /** The literal parts of the path, one more than `names`. */
  literals: string[];
  names: string[];
  /** Per parameter: the row's fixed value, if any. */
  fixed: (string | undefined)[];
  /** Per parameter: sent as it is (x-ms-skip-url-encoding). */
  raw: boolean[];
}

/**
 * Sends any operation of a table by its name: the code every row shares, as the typed clients'
 * plumbing (ArmClient: the bearer token, retries, pacing to the subscription's throttling budget,
 * Azure's request ids, answers checked against the row's schema to learn and handed on unchanged,
 * `null` as absent, unknown fields and enum values kept). One ARM client per api-version and spec
 * document, made on first use with the same options (so the same pacer). Paths are the rows'
 * templates with each parameter URI-encoded and the namespace spelt as the options' naming says.
 */
export class ArmOperations<T extends ArmOperationTable> {
  private readonly ready = new Map<string, ReadyRow>();
  private readonly clients = new Map<string, RowClient>();
  private readonly naming: NamingStyle;

  constructor(
    private readonly options: ArmClientOptions,
    private readonly table: T,
  ) {
    this.naming = options.naming ?? "real";
  }

  /** What a read answered (one object, or every item of every page of a list), with the receipt of the read. */
  read<N extends ReadNames<T>>(name: N, params: ParamsOf<T[N]>, signal?: AbortSignal): Promise<ArmRead<AnswerOf<T[N]>>> {
    const r = this.readNamed(name);
    const p = params as Readonly<Record<string, string>>;
    const opts = { target: r.row.target?.(p), signal };
    const path = this.pathOf(r, p);
    return (r.row.list ? r.client.listRead(r.op, path, opts) : r.client.singleRead(r.op, path, opts)) as Promise<ArmRead<AnswerOf<T[N]>>>;
  }

  /** What a read answered, without the receipt (a list: every item of every page). */
  get<N extends ReadNames<T>>(name: N, params: ParamsOf<T[N]>, signal?: AbortSignal): Promise<AnswerOf<T[N]>> {
    const r = this.readNamed(name);
    const p = params as Readonly<Record<string, string>>;
    const opts = { target: r.row.target?.(p), signal };
    const path = this.pathOf(r, p);
    return (r.row.list ? collect(r.client.listPages(r.op, path, opts)) : r.client.one(r.op, path, opts)) as Promise<AnswerOf<T[N]>>;
  }

  /** A list, one page (one request) a step. */
  pages<N extends ListNames<T>>(name: N, params: ParamsOf<T[N]>, signal?: AbortSignal): AsyncGenerator<ItemOf<T[N]>[], void, undefined> {
    const r = this.readNamed(name);
    const p = params as Readonly<Record<string, string>>;
    return r.client.listPages<ItemOf<T[N]>>(r.op, this.pathOf(r, p), { target: r.row.target?.(p), signal });
  }

  /** Sends a PUT row with its body; resolves with the object answered. */
  put<N extends keyof T & string>(name: N, params: ParamsOf<T[N]>, json: unknown, signal?: AbortSignal): Promise<AnswerOf<T[N]>> {
    const r = this.rowNamed(name);
    const p = params as Readonly<Record<string, string>>;
    return r.client.one(r.op, this.pathOf(r, p), { method: "PUT", json, target: r.row.target?.(p), signal }) as Promise<AnswerOf<T[N]>>;
  }

  /** What a failed call of these operations is, when it is the cloud's answer about the resource asked for (failed-read.ts). */
  failureOf(e: unknown): FailedRead | undefined {
    return failedReadOf(e);
  }

  /** The request path of a call: the template's literals with each parameter between them. */
  private pathOf(r: ReadyRow, params: Readonly<Record<string, string>>): string {
    let path = r.literals[0];
    for (let i = 0; i < r.names.length; i++) {
      const v = r.fixed[i] ?? params[r.names[i]];
      if (typeof v !== "string" || v.length === 0)
        throw new TypeError(`${r.op.id}: the parameter ${r.names[i]} must be a non-empty string (got ${JSON.stringify(v)})`);
      if (!r.raw[i]) path += encodeURIComponent(v);
      else {
        const bare = v.replace(/^\/+|\/+$/g, "");
        // A scope that is the root (`/`) leaves no segment: the template's slash before it goes too.
        path = bare ? path + bare : path.slice(0, -1);
      }
      path += r.literals[i + 1];
    }
    return path;
  }

  private rowNamed(name: string): ReadyRow {
    return this.ready.get(name) ?? this.prepare(name);
  }

  /** A row to read with: a PUT row is refused (the types refuse it too; a name computed at run time may not be checked). */
  private readNamed(name: string): ReadyRow {
    const r = this.rowNamed(name);
    if (r.row.method === "PUT") throw new Error(`${name} is a PUT, not a read`);
    return r;
  }

  private prepare(name: string): ReadyRow {
    const row = Object.hasOwn(this.table, name) ? this.table[name] : undefined;
    if (!row) throw new Error(`no operation "${name}" is declared in this table`);
    let template = row.path.split("?")[0];
    for (const s of RENAMED)
      template = template.split(`/providers/Microsoft.${s}/`).join(`/providers/${providerNamespace(s, this.naming)}/`);
    const literals: string[] = [];
    const names: string[] = [];
    let at = 0;
    for (const m of template.matchAll(/\{([^}]+)\}/g)) {
      literals.push(template.slice(at, m.index));
      names.push(m[1]);
      at = m.index + m[0].length;
    }
    literals.push(template.slice(at));
    const key = `${row.apiVersion}\u0000${row.spec}`;
    let client = this.clients.get(key);
    if (!client) this.clients.set(key, (client = new RowClient(this.options, { apiVersion: row.apiVersion, spec: row.spec })));
    const ready: ReadyRow = {
      row,
      op: { id: name, schema: row.schema, ...(row.resource === false ? { resource: false } : {}) },
      client,
      literals,
      names,
      fixed: names.map((n) => row.fixed?.[n]),
      raw: names.map((n) => row.unencoded?.includes(n) ?? false),
    };
    this.ready.set(name, ready);
    return ready;
  }
}

/** An ARM client of one api-version and spec document, its sending methods open to the rows. */
class RowClient extends ArmClient {
  one<R>(
    op: ArmOperation,
    path: string,
    opts: { method?: "GET" | "PUT"; json?: unknown; target?: CallTarget; signal?: AbortSignal },
  ): Promise<R> {
    return this.single<R>(op, path, opts);
  }

  override singleRead<R>(op: ArmOperation, path: string, opts: { target?: CallTarget; signal?: AbortSignal }): Promise<ArmRead<R>> {
    return super.singleRead<R>(op, path, opts);
  }

  override listRead<R>(op: ArmOperation, path: string, opts: { target?: CallTarget; signal?: AbortSignal }): Promise<ArmRead<R[]>> {
    return super.listRead<R>(op, path, opts);
  }

  listPages<R>(op: ArmOperation, path: string, opts: { target?: CallTarget; signal?: AbortSignal }): AsyncGenerator<R[], void, undefined> {
    return this.pages<R>(op, path, opts);
  }
}
