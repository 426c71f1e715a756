import type { EmulatorReply, EmulatorRequest, Handler } from "./emulator-app";
import type { AccessTokens, TokenClaims } from "./access-tokens";
import type { ArmThrottle } from "./arm-throttling";

/** What records the ARM writes a route serves (the Activity Log, Event Grid): told of each with its caller's claims. */
export interface WriteRecorder {
  around(
    req: EmulatorRequest,
    claims: TokenClaims,
    run: () => EmulatorReply | Promise<EmulatorReply>,
  ): EmulatorReply | Promise<EmulatorReply>;
}

/** An ARM error reply: `{ "error": { "code", "message" } }`. */
export function armError(status: number, code: string, message: string, headers?: Record<string, string>): EmulatorReply {
  return { status, body: { error: { code, message } }, headers };
}

/** 404 in ARM's words for a missing resource. */
export function resourceNotFound(type: string, name: string, resourceGroup?: string): EmulatorReply {
  return armError(
    404,
    "ResourceNotFound",
    `The Resource '${type}/${name}' under resource group '${resourceGroup ?? "<unknown>"}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix`,
  );
}

export function resourceGroupNotFound(name: string): EmulatorReply {
  return armError(404, "ResourceGroupNotFound", `Resource group '${name}' could not be found.`);
}

export interface ArmRouteOptions {
  /** The api-versions this route accepts. */
  apiVersions: readonly string[];
  tokens: AccessTokens;
  /** Resource Manager's throttling: after authentication, before the handler; its headers go on every answer. */
  throttle?: ArmThrottle;
  /** Records the writes that pass the front door (change-recorder.ts). */
  changes?: WriteRecorder;
}

const READS: ReadonlySet<string> = new Set(["GET", "HEAD"]);

/** Wraps a handler with ARM's front door: api-version is required and checked, then the bearer token. */
export function armRoute(handler: Handler, opts: ArmRouteOptions): Handler {
  const versions = new Set(opts.apiVersions);
  const list = opts.apiVersions.map((v) => `'${v}'`).join(", ");
  return (req) => {
    const auth = checkBearer(req, opts.tokens);
    if (auth) return auth;
    const version = req.query.get("api-version");
    if (!version) {
      return armError(400, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.");
    }
    if (!versions.has(version)) {
      return armError(400, "InvalidApiVersionParameter", `The api-version '${version}' is invalid. The supported versions are ${list}.`);
    }
    const verdict = opts.throttle?.admit(req);
    if (verdict?.reply) return verdict.reply;
    // Reads are never recorded: they skip the recorder (and a second look at the token) on the hot path.
    const run = opts.changes && !READS.has(req.method) ? recorded(req, opts.tokens, opts.changes, handler) : () => handler(req);
    return verdict ? withHeaders(run(), verdict.headers) : run();
  };
}

/** The handler run through the write recorder, with the claims of the token checkBearer has accepted. */
function recorded(
  req: EmulatorRequest,
  tokens: AccessTokens,
  changes: WriteRecorder,
  handler: Handler,
): () => EmulatorReply | Promise<EmulatorReply> {
  const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "";
  const claims = tokens.verify(token, req.now).claims;
  return claims ? () => changes.around(req, claims, () => handler(req)) : () => handler(req);
}

async function withHeaders(reply: EmulatorReply | Promise<EmulatorReply>, headers: Record<string, string>): Promise<EmulatorReply> {
  const r = await reply;
  return { ...r, headers: { ...r.headers, ...headers } };
}

/**
 * The audiences Resource Manager accepts, exactly as it lists them in InvalidAuthenticationTokenAudience:
 * a token for another resource (a key vault, Graph, storage) is refused even when it is otherwise valid.
 */
export const ARM_AUDIENCES: readonly string[] = [
  "https://management.core.windows.net/",
  "https://management.core.windows.net",
  "https://management.azure.com/",
  "https://management.azure.com",
];
const AUDIENCE_LIST = ARM_AUDIENCES.map((a) => `'${a}'`).join(",");

/**
 * ARM's 401: the `{ error }` body plus the RFC 6750 challenge ARM sends with it,
 * `Bearer authorization_uri="https://login.windows.net/<tenant>", error="invalid_token", error_description="<message>"`.
 */
function unauthorized(code: string, message: string, tenantId?: string): EmulatorReply {
  const description = message.replace(/["\\]/g, "'");
  return armError(401, code, message, {
    "www-authenticate": `Bearer authorization_uri="https://login.windows.net/${tenantId ?? ""}", error="invalid_token", error_description="${description}"`,
  });
}

/**
 * Returns ARM's 401 reply when the request has no valid bearer token for Resource Manager from
 * this emulator's IMDS, checked as Azure does: the header (AuthenticationFailed), the token itself
 * (InvalidAuthenticationToken: malformed, not signed by this estate's key, not yet valid), its
 * audience (InvalidAuthenticationTokenAudience) and its expiry (ExpiredAuthenticationToken).
 */
export function checkBearer(req: EmulatorRequest, tokens: AccessTokens): EmulatorReply | undefined {
  const header = req.headers.authorization;
  if (!header) {
    return unauthorized("AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.");
  }
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  if (!m) {
    return unauthorized("AuthenticationFailed", "Authentication failed. The 'Authorization' header is provided in an invalid format.");
  }
  const verdict = tokens.verify(m[1], req.now);
  // Malformed, signed with another key, or not valid yet: no claims to trust.
  const claims = verdict.claims;
  if (!claims) return unauthorized("InvalidAuthenticationToken", "The access token is invalid.");
  if (!ARM_AUDIENCES.includes(claims.aud)) {
    return unauthorized(
      "InvalidAuthenticationTokenAudience",
      `The access token has been obtained for wrong audience or resource '${claims.aud}'. It should exactly match with one of the allowed audiences ${AUDIENCE_LIST}.`,
      claims.tid,
    );
  }
  if (!verdict.ok) {
    return unauthorized(
      "ExpiredAuthenticationToken",
      `The access token expiry UTC time '${dotnetUtc(claims.exp * 1000)}' is earlier than current UTC time '${dotnetUtc(req.now)}'.`,
      claims.tid,
    );
  }
  return undefined;
}

/** A time as .NET prints a UTC DateTime in ARM's messages: `6/15/2026 8:22:51 AM`. */
export function dotnetUtc(ms: number): string {
  const d = new Date(ms);
  const h = d.getUTCHours();
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()} ${h % 12 === 0 ? 12 : h % 12}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} ${h < 12 ? "AM" : "PM"}`;
}

/**
 * One page of an ARM list with a `nextLink` when more remain. The skip token is an opaque offset,
 * so the next page is computed from the request alone.
 */
export function armPage<T>(req: EmulatorRequest, items: readonly T[], pageSize: number): EmulatorReply {
  const token = req.query.get("$skiptoken");
  const start = token ? decodeSkipToken(token) : 0;
  if (start === undefined || start > items.length) {
    return armError(400, "InvalidSkipToken", `The $skiptoken '${token}' is not valid for this list.`);
  }
  const size = pageSize > 0 ? pageSize : items.length || 1;
  const value = items.slice(start, start + size);
  const body: { value: T[]; nextLink?: string } = { value };
  if (start + size < items.length) {
    const q = new URLSearchParams(req.query);
    q.set("$skiptoken", encodeSkipToken(start + size));
    body.nextLink = `${req.baseUrl}${req.path}?${q.toString()}`;
  }
  return { status: 200, body };
}

function encodeSkipToken(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

function decodeSkipToken(token: string): number | undefined {
  const m = /^o:(\d+)$/.exec(Buffer.from(token, "base64url").toString("utf8"));
  return m ? Number(m[1]) : undefined;
}
