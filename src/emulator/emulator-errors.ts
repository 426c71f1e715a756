import type { FaultDecision } from "./fault-injector";
import type { EmulatorReply } from "./kit/emulator-app";
import type { EmulatorErrorKind, LocalService } from "./kit/local-service";

/** The emulator's own answer in the error form of the service that owns the path, when that service gives one. */
export function serviceErrorReply(
  services: readonly LocalService[],
  path: string,
  status: number,
  kind: EmulatorErrorKind,
  headers: Record<string, string> = {},
): EmulatorReply | undefined {
  for (const s of services) {
    const reply = s.errorReply?.(path, status, kind);
    if (reply) return { ...reply, headers: { ...headers, ...reply.headers } };
  }
  return undefined;
}

/** An injected status (with its Retry-After when the fault sets one), in the addressed service's error form. */
export function injectedStatusReply(
  services: readonly LocalService[],
  path: string,
  decision: Extract<FaultDecision, { kind: "status" }>,
): EmulatorReply {
  const headers: Record<string, string> = {};
  if (decision.retryAfterMs !== undefined) {
    headers["retry-after"] = String(Math.ceil(decision.retryAfterMs / 1000));
    headers["retry-after-ms"] = String(decision.retryAfterMs);
  }
  return serviceErrorReply(services, path, decision.status, "fault", headers) ?? faultReply(path, decision.status, headers);
}

/** 405 for a path some other method serves, else 404: in the owning service's form, else ARM's. */
export function noRouteReply(services: readonly LocalService[], method: string, path: string, pathRouted: boolean): EmulatorReply {
  const status = pathRouted ? 405 : 404;
  return (
    serviceErrorReply(services, path, status, "no-route") ?? {
      status,
      body: {
        error: { code: status === 405 ? "MethodNotAllowed" : "NotFound", message: `The emulator has no route for ${method} ${path}.` },
      },
    }
  );
}

/** 400 for a JSON body that does not parse: in the owning service's form, else ARM's. */
export function invalidBodyReply(services: readonly LocalService[], path: string): EmulatorReply {
  return (
    serviceErrorReply(services, path, 400, "invalid-body") ?? {
      status: 400,
      body: {
        error: {
          code: "InvalidRequestContent",
          message: "The request content was invalid and could not be deserialized: the body is not valid JSON.",
        },
      },
    }
  );
}

/** An injected fault in the shape the addressed service uses for errors. */
function faultReply(path: string, status: number, headers: Record<string, string>): EmulatorReply {
  const lower = path.toLowerCase();
  if (lower.startsWith("/metadata/identity")) {
    return {
      status,
      headers,
      body: { error: status === 429 ? "too_many_requests" : "service_unavailable", error_description: `Injected fault: HTTP ${status}` },
    };
  }
  if (lower.startsWith("/metadata/")) return { status, headers, body: { error: `Injected fault: HTTP ${status}` } };
  const code = status === 429 ? "TooManyRequests" : status === 410 ? "Gone" : status >= 500 ? "ServiceUnavailable" : "InjectedFault";
  return { status, headers, body: { error: { code, message: `Injected fault: HTTP ${status}. Retry the request.` } } };
}
