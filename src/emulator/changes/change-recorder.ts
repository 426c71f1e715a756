import type { EmulatorReply, EmulatorRequest } from "../kit/emulator-app";
import type { FaultInjector } from "../fault-injector";
import type { ActivityLog } from "./activity-log";
import { activityLogEntry, type ActivityLogEventData, type WriteOutcome } from "./activity-log-entry";
import { armWrite } from "./arm-write";
import type { CallerClaims } from "./caller";
import { writeContext, type WriteContext } from "./write-context";

/** Told of every ARM write that succeeded (Event Grid's publisher). */
export type WriteListener = (w: WriteContext, reply: EmulatorReply, at: number) => void;

/**
 * Records the ARM writes the emulator serves, as Azure does: two Activity Log entries per write
 * (Started when received, Succeeded or Failed when answered), and each success told to the
 * listeners (Event Grid). Every entry goes through the fault injector's record rules (channel
 * `activityLog`): dropped, delayed (listed only from later on), duplicated (same eventDataId) or
 * reordered (ingested after the next entry). Writes refused at the front door (no token, a bad
 * api-version, throttled) never reach a resource provider and are not recorded, as in Azure.
 */
export class ChangeRecorder {
  private readonly listeners: WriteListener[] = [];
  /** An entry held back by a reorder fault, until the next one is appended (or its wait ends). */
  private held?: { entry: ActivityLogEventData; at: number; timer: NodeJS.Timeout };

  constructor(
    private readonly log: ActivityLog,
    private readonly faults: FaultInjector,
    private readonly now: () => number,
  ) {}

  onWriteSucceeded(listener: WriteListener): void {
    this.listeners.push(listener);
  }

  /** Runs a routed handler; when the request is an ARM write, records it around the handler. */
  around(
    req: EmulatorRequest,
    claims: CallerClaims,
    run: () => EmulatorReply | Promise<EmulatorReply>,
  ): EmulatorReply | Promise<EmulatorReply> {
    const write = armWrite(req.method, req.path);
    if (!write) return run();
    const w = writeContext(req, write, claims);
    this.append(activityLogEntry(w, undefined, w.receivedAt, w.receivedAt), w.receivedAt);
    const reply = run();
    if (reply instanceof Promise) return reply.then((r) => this.finish(w, r));
    return this.finish(w, reply);
  }

  /** Forgets a held entry (the emulator's reset of its change records). */
  reset(): void {
    if (this.held) clearTimeout(this.held.timer);
    this.held = undefined;
  }

  private finish(w: WriteContext, reply: EmulatorReply): EmulatorReply {
    const at = Math.max(this.now(), w.receivedAt);
    const outcome: WriteOutcome = { status: reply.status, body: reply.status >= 400 ? reply.body : undefined };
    this.append(activityLogEntry(w, outcome, at, at), at);
    if (reply.status < 400) for (const l of this.listeners) l(w, reply, at);
    return reply;
  }

  private append(entry: ActivityLogEventData, at: number): void {
    const decision = this.faults.decideRecord("activityLog", entry.resourceId);
    if (decision.kind === "drop") return;
    if (decision.kind === "reorder") {
      this.releaseHeld();
      const timer = setTimeout(() => this.releaseHeld(), decision.ms);
      timer.unref();
      this.held = { entry, at, timer };
      return;
    }
    const visibleAt = decision.kind === "delay" ? at + decision.ms : at;
    if (decision.kind === "delay") entry.submissionTimestamp = new Date(visibleAt).toISOString();
    this.log.append(entry, at, visibleAt);
    if (decision.kind === "duplicate") this.log.append(entry, at, visibleAt);
    this.releaseHeld();
  }

  private releaseHeld(): void {
    const h = this.held;
    if (!h) return;
    clearTimeout(h.timer);
    this.held = undefined;
    this.log.append(h.entry, h.at, h.at);
  }
}
