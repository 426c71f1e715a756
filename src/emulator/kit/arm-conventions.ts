import type { EmulatorReply, EmulatorRequest, Handler } from "./emulator-app";
import type { AccessTokens } from "./access-tokens";
import type { ArmThrottle } from "./arm-throttling";

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
}

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
    if (!verdict) return handler(req);
    if (verdict.reply) return verdict.reply;
    return withHeaders(handler(req), verdict.headers);
  };
}

async function withHeaders(reply: EmulatorReply | Promise<EmulatorReply>, headers: Record<string, string>): Promise<EmulatorReply> {
  const r = await reply;
  return { ...r, headers: { ...r.headers, ...headers } };
}

/** Returns an ARM 401 reply when the request has no valid bearer token from this emulator's IMDS. */
export function checkBearer(req: EmulatorRequest, tokens: AccessTokens): EmulatorReply | undefined {
  const header = req.headers.authorization;
  // Built only for a refusal: most requests are authorized.
  const challenge = () => ({
    "www-authenticate": `Bearer authorization_uri="${req.baseUrl}/metadata/identity/oauth2/token", error="invalid_token"`,
  });
  if (!header) {
    return armError(401, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.", challenge());
  }
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  if (!m) {
    return armError(
      401,
      "AuthenticationFailed",
      "Authentication failed. The 'Authorization' header is provided in an invalid format.",
      challenge(),
    );
  }
  const verdict = tokens.verify(m[1], req.now);
  if (verdict.ok) return undefined;
  if (verdict.reason === "expired") {
    return armError(
      401,
      "ExpiredAuthenticationToken",
      `The access token expiry UTC time '${new Date(verdict.expiresAt).toUTCString()}' is earlier than current UTC time '${new Date(req.now).toUTCString()}'.`,
      challenge(),
    );
  }
  return armError(401, "InvalidAuthenticationToken", "The access token is invalid.", challenge());
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
