import { createHash } from "node:crypto";
import type { AccessTokens } from "./kit/access-tokens";
import type { EmulatorReply } from "./kit/emulator-app";
import { ARM_AUDIENCES } from "./kit/arm-conventions";

/**
 * The Azure portal's application id, as a user's token through the portal carries it in `appid`
 * (the emulator's user tokens default to it: "someone changed it in the portal").
 */
export const AZURE_PORTAL_APP_ID = "c44b4083-3bb0-49c1-b47d-974e53cbdf3c";

export { DEFAULT_IMDS_TENANT_ID as DEFAULT_TENANT_ID } from "./services/imds/imds-local";

/**
 * `POST /_emulator/user-token {"upn": "alice@contoso.com", "name"?, "appId"?}`: a token for
 * Resource Manager as a user would get one (signed with the estate's key, so ARM accepts it),
 * carrying `upn`, `unique_name` and `name`, so a write made with it is recorded with that user as
 * its caller. The user's object id is derived from the UPN, so the same user keeps one id.
 */
export function issueUserToken(
  d: { tokens: AccessTokens; tenantId: string; ttlSeconds: number; now: number },
  body: Record<string, unknown>,
): EmulatorReply {
  const upn = body.upn;
  if (typeof upn !== "string" || !/^[^@\s]+@[^@\s]+$/.test(upn)) {
    return {
      status: 400,
      body: { error: { code: "InvalidUserToken", message: 'body: "upn" must be a user principal name such as alice@contoso.com' } },
    };
  }
  const name = typeof body.name === "string" ? body.name : undefined;
  const appId = typeof body.appId === "string" ? body.appId : AZURE_PORTAL_APP_ID;
  const { token, claims } = d.tokens.issue({
    resource: ARM_AUDIENCES[2],
    tenantId: d.tenantId,
    objectId: uuidFrom(upn.toLowerCase()),
    clientId: appId,
    ttlSeconds: d.ttlSeconds,
    now: d.now,
    user: { upn, name },
  });
  return { status: 200, body: { access_token: token, token_type: "Bearer", expires_on: String(claims.exp), resource: claims.aud } };
}

/** A stable uuid-shaped id from a string. */
function uuidFrom(s: string): string {
  const h = createHash("sha256").update(s).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
