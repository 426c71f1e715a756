import type { TransparentDataEncryptionActivityStatus, TransparentDataEncryptionStatus } from "../../../services/sql/types";

/** How a scan ends: it reaches 100%, it fails (and the status reverts), or it never ends. */
export type ScanOutcome = "succeed" | "fail" | "stall";

/**
 * An encryption or decryption scan, recorded when a PUT changes a database's TDE status.
 * Plain JSON (times on the emulator clock, in ms), so it persists with the state; progress is
 * computed from it on demand, never by a timer.
 */
export interface TdeScan {
  from: TransparentDataEncryptionStatus;
  to: TransparentDataEncryptionStatus;
  startedAt: number;
  durationMs: number;
  outcome: ScanOutcome;
  /** Where a failing scan ends, or a stalled one stops. */
  failAtPercent: number;
  /** How long a stalled scan stands still before it goes on, in ms; absent: for ever. */
  stallMs?: number;
}

export type ScanPhase =
  | { running: true; activity: TransparentDataEncryptionActivityStatus; percentComplete: number }
  | { running: false; status: TransparentDataEncryptionStatus };

/** Where a scan stands at `now`: still running (with its progress) or finished (with the status it left). */
export function scanPhase(scan: TdeScan, now: number): ScanPhase {
  const elapsed = Math.max(0, now - scan.startedAt);
  const raw = scan.durationMs <= 0 ? 100 : (elapsed / scan.durationMs) * 100;
  const activity = scan.to === "Enabled" ? "Encrypting" : "Decrypting";
  switch (scan.outcome) {
    case "fail":
      if (raw >= scan.failAtPercent) return { running: false, status: scan.from };
      return { running: true, activity, percentComplete: floor2(raw) };
    case "stall": {
      if (scan.stallMs === undefined) return { running: true, activity, percentComplete: floor2(Math.min(raw, scan.failAtPercent)) };
      // It stands still at failAtPercent for stallMs, then goes on from there as a healthy scan would.
      const stallStart = (scan.failAtPercent / 100) * scan.durationMs;
      const moving = elapsed <= stallStart ? elapsed : Math.max(stallStart, elapsed - scan.stallMs);
      const pct = scan.durationMs <= 0 ? 100 : (moving / scan.durationMs) * 100;
      if (pct >= 100) return { running: false, status: scan.to };
      return { running: true, activity, percentComplete: floor2(pct) };
    }
    default:
      if (raw >= 100) return { running: false, status: scan.to };
      return { running: true, activity, percentComplete: floor2(raw) };
  }
}

/** Two decimals, rounded down, so a running scan never shows 100. */
function floor2(x: number): number {
  return Math.floor(x * 100) / 100;
}
