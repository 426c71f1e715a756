import { randomUUID } from "node:crypto";
import type { EmulatorRequest } from "../kit/emulator-app";
import type { ArmWrite } from "./arm-write";
import type { CallerClaims } from "./caller";

/** One ARM write being served: what every change record of it (Started, Succeeded or Failed, the Event Grid event) shares. */
export interface WriteContext {
  write: ArmWrite;
  claims: CallerClaims;
  /** The request's `x-ms-correlation-request-id` when it sent one (as Resource Manager keeps it), else a new id. */
  correlationId: string;
  /** One id for the operation, the same in its Started and its Succeeded entry. */
  operationId: string;
  /** The request's `x-ms-client-request-id`, or empty. */
  clientRequestId: string;
  clientIpAddress: string;
  /** The URL the write was sent to, as this emulator serves it. */
  requestUrl: string;
  /** When the emulator received the write, on its clock (ms). */
  receivedAt: number;
}

/** The context of a write the request makes, by the claims its (already verified) token carries. */
export function writeContext(req: EmulatorRequest, write: ArmWrite, claims: CallerClaims): WriteContext {
  return {
    write,
    claims,
    correlationId: header(req, "x-ms-correlation-request-id") || randomUUID(),
    operationId: randomUUID(),
    clientRequestId: header(req, "x-ms-client-request-id"),
    clientIpAddress: req.remoteAddress ?? "",
    requestUrl: `${req.baseUrl}${req.path}?${req.query.toString()}`,
    receivedAt: req.now,
  };
}

function header(req: EmulatorRequest, name: string): string {
  const v = req.headers[name];
  return typeof v === "string" ? v : "";
}
