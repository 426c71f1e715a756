import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pageAssets } from "../page/page-assets";
import { renderMessagePage, renderOverviewPage, renderStackPage, stackPagePath } from "../page/status-page";
import { databaseListOf } from "../status/database-list";
import { DatabaseQueryError, databasePage, parseDatabaseQuery, type DatabaseQuery } from "../status/database-query";
import type { StackStatus, StackStatusList, StatusApiError } from "../status/stack-status";
import type { StatusBoard } from "../status/status-board";
import { STACK_DETAILS_TEMPLATE, stackListEntry } from "../status/stack-list-entry";
import { STATUS_API_SCHEMA } from "../status/status-schema";
import { acceptsGzip, gzipWithKeptTail, keptPart, type KeptPart } from "./gzip-parts";
import type { StatusAccess } from "./status-access";
import type { StatusStream } from "./status-stream";

/**
 * What the page may load: only files this server serves, no inline script or style, no framing, no
 * plugins; forms submit to this server only (the databases' filter is a GET form). The page's script fetches the page and the stream from the same origin.
 */
export const STATUS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Headers on every response of the status page and API. */
export const STATUS_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": STATUS_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

const CHALLENGE = ['Basic realm="stackwarden status", charset="UTF-8"', 'Bearer realm="stackwarden status"'];

export interface StatusRoutes {
  board: StatusBoard;
  access: StatusAccess;
  stream: StatusStream;
}

/**
 * Serves the status page (`/`, `/stacks/{name}` with its databases' filter and page in the query),
 * its assets (`/assets/…`) and the API (`/api/v1/stacks[/{name}[/databases]]`, `/api/v1/schema`,
 * `/api/v1/stream`) behind the access check; also
 * checks access for `/metrics` (`guardOnly`). Returns false for a path it does not serve.
 */
export function serveStatus(r: StatusRoutes, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): boolean {
  const api = path.startsWith("/api/");
  const page = path === "/" || path.startsWith("/stacks/");
  const asset = path.startsWith("/assets/");
  if (!api && !page && !asset) return false;

  // A browser signs in once with ?token=: the token is swapped for a cookie and dropped from the address.
  const offered = query.get("token");
  if (page && offered !== null && r.access.tokenRequired) {
    if (r.access.tokenMatches(offered)) {
      query.delete("token");
      const rest = query.toString();
      res
        .writeHead(303, {
          ...STATUS_HEADERS,
          location: `${path}${rest ? `?${rest}` : ""}`,
          "set-cookie": r.access.signInCookie(),
          "cache-control": "no-store",
        })
        .end();
      return true;
    }
  }
  if (!admit(r.access, req, res, api)) return true;

  if (asset) {
    const a = pageAssets().get(path);
    if (!a) return (notFound(res, api, `no asset ${path}`), true);
    if (req.headers["if-none-match"] === a.etag) {
      res.writeHead(304, { ...STATUS_HEADERS, etag: a.etag, "cache-control": "no-cache" }).end();
    } else {
      res.writeHead(200, { ...STATUS_HEADERS, "content-type": a.contentType, etag: a.etag, "cache-control": "no-cache" }).end(a.body);
    }
    return true;
  }

  if (path === "/") {
    sendHtml(res, 200, renderOverviewPage(listOf(r.board), r.board.replica));
    return true;
  }
  if (path === "/api/v1/stacks") {
    serveList(r.board, req, res);
    return true;
  }
  if (path === "/api/v1/schema") {
    sendJson(res, 200, STATUS_API_SCHEMA, "application/schema+json");
    return true;
  }
  if (path === "/api/v1/stream") {
    r.stream.open(req, res, { ...STATUS_HEADERS });
    return true;
  }
  const one = /^\/(?:api\/v1\/stacks|stacks)\/([^/]+)(\/databases)?$/.exec(path);
  if (one && (!one[2] || api)) {
    let name: string;
    try {
      name = decodeURIComponent(one[1]);
    } catch {
      if (api) sendJson(res, 400, apiError("BadRequest", "the stack name in the path is not valid percent-encoding"));
      else sendHtml(res, 400, renderMessagePage("Bad request", "The stack name in the address is not valid percent-encoding."));
      return true;
    }
    const status = r.board.get(name);
    if (!status) return (notFound(res, api, `no stack named ${JSON.stringify(name)} is watched`), true);
    if (api && !one[2]) return (sendJsonText(res, 200, statusJson(status)), true);
    let asked: DatabaseQuery;
    try {
      asked = parseDatabaseQuery(query, ["token"]);
    } catch (e) {
      if (!(e instanceof DatabaseQueryError)) throw e;
      if (api) sendJson(res, 400, apiError("BadRequest", e.message));
      else sendHtml(res, 400, renderMessagePage("Bad request", `${e.message}.`, stackPagePath(name)));
      return true;
    }
    const inventory = r.board.databases(name);
    const page = databasePage(inventory, asked);
    if (api) sendJson(res, 200, databaseListOf(name, r.board.revision, inventory, page));
    else sendHtml(res, 200, renderStackPage(status, r.board.revision, { page, inventory }));
    return true;
  }
  notFound(res, api, `${path} is not part of the status API: try /api/v1/stacks`);
  return true;
}

/** Checks access; answers 401/403 itself (JSON for the API, a page otherwise) and returns false when refused. */
export function admit(access: StatusAccess, req: IncomingMessage, res: ServerResponse, json: boolean): boolean {
  const v = access.check(req);
  if (v.ok) return true;
  const extra: Record<string, string | string[]> = v.status === 401 ? { "www-authenticate": CHALLENGE } : {};
  const code = v.status === 401 ? "Unauthorized" : "Forbidden";
  if (json) sendJson(res, v.status, apiError(code, v.reason), undefined, extra);
  else
    sendHtml(
      res,
      v.status,
      renderMessagePage(
        v.status === 401 ? "Sign in" : "Forbidden",
        v.status === 401
          ? `${v.reason}. Send it as a bearer token, as the password of the browser's sign-in prompt, or open this address with ?token=… once.`
          : v.reason,
      ),
      extra,
    );
  return false;
}

function listOf(board: StatusBoard): StackStatusList {
  return { revision: board.revision, generatedAt: new Date().toISOString(), details: STACK_DETAILS_TEMPLATE, stacks: board.list() };
}

/** Tells this process's ETags from those of an earlier watcher on the same address. */
const PROCESS_TAG = randomUUID().slice(0, 8);

/** Whether an If-None-Match header names `etag` (or is `*`); weak comparison, as RFC 9110 asks for it. */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => t.trim() === "*" || bare(t) === bare(etag));
}

/**
 * Each status serialized once: a StackStatus is frozen and replaced on every update, so its JSON
 * can be kept beside it until it is dropped. A list answer then costs a concatenation, not a
 * JSON.stringify of every stack, however often it is polled.
 */
const serialized = new WeakMap<StackStatus, string>();

function statusJson(s: StackStatus): string {
  let text = serialized.get(s);
  if (text === undefined) serialized.set(s, (text = JSON.stringify(s)));
  return text;
}

/** Each stack's list entry (stack-list-entry.ts) serialized once, as its full status is. */
const summarized = new WeakMap<StackStatus, string>();

function listEntryJson(s: StackStatus): string {
  let text = summarized.get(s);
  if (text === undefined) summarized.set(s, (text = JSON.stringify(stackListEntry(s))));
  return text;
}

/**
 * The list's stacks as UTF-8, kept per board until its revision moves: 20 clients polling it would
 * otherwise each have it joined, encoded and (asking for gzip) compressed again.
 */
const listed = new WeakMap<StatusBoard, { revision: number; stacks: KeptPart }>();

/** The list answer (a StackStatusList): its head (revision, a fresh generatedAt), then the kept bytes of its stacks. */
function listJson(board: StatusBoard): [Buffer, KeptPart] {
  const head: Omit<StackStatusList, "stacks"> = {
    revision: board.revision,
    generatedAt: new Date().toISOString(),
    details: STACK_DETAILS_TEMPLATE,
  };
  let kept = listed.get(board);
  if (kept?.revision !== board.revision) {
    kept = { revision: board.revision, stacks: keptPart(Buffer.from(`,"stacks":[${board.list().map(listEntryJson).join(",")}]}\n`)) };
    listed.set(board, kept);
  }
  return [Buffer.from(JSON.stringify(head).slice(0, -1)), kept.stacks];
}

/** `/api/v1/stacks`: the list, 304 to a poller that has this revision, gzip to a client that asks. */
function serveList(board: StatusBoard, req: IncomingMessage, res: ServerResponse): void {
  // A poller that has this revision already gets 304 and no body (the ETag names the process too:
  // a restarted watcher's revisions start again).
  const etag = `W/"${PROCESS_TAG}-${board.revision}"`;
  if (etagMatches(req.headers["if-none-match"], etag)) {
    res.writeHead(304, { ...STATUS_HEADERS, etag, "cache-control": "no-cache" }).end();
    return;
  }
  const [head, stacks] = listJson(board);
  // Compressed for the clients that ask (browsers, fetch, Go's client): the stacks' part is deflated
  // once per revision, only the head (its fresh generatedAt) per request.
  const gzip = acceptsGzip(req.headers["accept-encoding"]);
  const body = gzip ? gzipWithKeptTail(head, stacks) : [head, stacks.bytes];
  res.writeHead(200, {
    ...STATUS_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-cache",
    vary: "Accept-Encoding",
    ...(gzip ? { "content-encoding": "gzip" } : {}),
    etag,
    "content-length": String(body.reduce((n, b) => n + b.length, 0)),
  });
  // One writev for the parts, not a write each.
  res.cork();
  for (const b of body.slice(0, -1)) res.write(b);
  res.end(body.at(-1));
}

function apiError(code: string, message: string): StatusApiError {
  return { error: { code, message } };
}

function notFound(res: ServerResponse, api: boolean, message: string): void {
  if (api) sendJson(res, 404, apiError("NotFound", message));
  else sendHtml(res, 404, renderMessagePage("Not found", message));
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  type = "application/json",
  extra: Record<string, string | string[]> = {},
): void {
  res
    .writeHead(status, { ...STATUS_HEADERS, ...extra, "content-type": `${type}; charset=utf-8`, "cache-control": "no-store" })
    .end(`${JSON.stringify(body)}\n`);
}

function sendJsonText(res: ServerResponse, status: number, json: string): void {
  res
    .writeHead(status, { ...STATUS_HEADERS, "content-type": "application/json; charset=utf-8", "cache-control": "no-store" })
    .end(`${json}\n`);
}

function sendHtml(res: ServerResponse, status: number, text: string, extra: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { ...STATUS_HEADERS, ...extra, "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(text);
}
