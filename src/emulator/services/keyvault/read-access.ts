import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import type { ServiceContext } from "../../kit/local-service";
import { armError } from "../../kit/arm-conventions";

/** Who is asking, from the bearer token the ARM front door has already verified. */
export interface Caller {
  objectId?: string;
  clientId?: string;
}

/** The caller of a request (its token's `oid` and `appid`): what a seed's `readDenied` names. */
export function callerOf(ctx: ServiceContext<unknown>, req: EmulatorRequest): Caller {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "");
  const claims = m ? ctx.tokens.verify(m[1], req.now).claims : undefined;
  return { objectId: claims?.oid, clientId: claims?.appid };
}

/** ARM's 403 when no role assignment grants the action over the scope, in its words. */
export function authorizationFailed(caller: Caller, action: string, scope: string): EmulatorReply {
  const oid = caller.objectId ?? "<unknown>";
  return armError(
    403,
    "AuthorizationFailed",
    `The client '${caller.clientId ?? oid}' with object id '${oid}' does not have authorization to perform action '${action}' over scope '${scope}' or the scope is invalid. If access was recently granted, please refresh your credentials.`,
  );
}
