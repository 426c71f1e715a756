import type { Dispatcher } from "undici";
import type { RequestSpec } from "./request-spec";

/** A call on its way down the stages; a stage that changes it passes a changed copy to the next. */
export interface OutgoingRequest {
  readonly spec: RequestSpec;
  /** Path and query on the transport's origin. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Dispatcher.DispatchOptions["body"];
  /** Read the body as bytes instead of text. */
  readonly asBuffer: boolean;
  /** The id this call carries in the header its service names for it (`RequestIdHeaders.client`); absent when it names none. */
  readonly clientRequestId?: string;
}

/** What came back, body read. */
export interface RawResponse {
  res: Dispatcher.ResponseData;
  text: string;
  buffer?: Buffer;
  /** Attempts the retry stage made, the first included. */
  attempts: number;
  /** The path and query as sent, after every stage (a query key included: redact before showing). */
  sentPath: string;
}

export type Send = (req: OutgoingRequest) => Promise<RawResponse>;

/**
 * One concern of the transport (auth, logging …), in the style of core-rest-pipeline's policies:
 * it may change the request, call `next` (once, or again to re-send), and look at the response.
 */
export interface Stage {
  readonly name: string;
  send(req: OutgoingRequest, next: Send): Promise<RawResponse>;
}

/** Chains stages, first one outermost, in front of the terminal sender. */
export function composeStages(stages: readonly Stage[], terminal: Send): Send {
  return stages.reduceRight<Send>((next, stage) => (req) => stage.send(req, next), terminal);
}
