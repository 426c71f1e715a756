/**
 * Event Grid's retry schedule for a failed delivery ("Event Grid message delivery and retry",
 * https://learn.microsoft.com/azure/event-grid/delivery-and-retry, "Retry schedule"): 10 s, 30 s,
 * 1 min, 5 min, 10 min, 30 min, 1 h, 3 h, 6 h, then every 12 h up to the event's time to live
 * (24 h by default). Event Grid adds a small randomization; the emulator does not, so a rehearsal
 * is repeatable.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [10, 30, 60, 300, 600, 1800, 3600, 10_800, 21_600].map((s) => s * 1000);

/** After the schedule's steps, Event Grid retries every 12 hours. */
export const LATER_RETRY_MS = 12 * 3600 * 1000;

/** The wait after the `attempt`-th failed attempt (1-based), multiplied by `timeScale` (the emulator's `eventGridRetryTimeScale`). */
export function retryDelayMs(attempt: number, timeScale: number): number {
  return (RETRY_SCHEDULE_MS[attempt - 1] ?? LATER_RETRY_MS) * timeScale;
}
