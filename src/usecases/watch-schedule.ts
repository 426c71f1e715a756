import { Cron } from "croner";
import { formatDuration } from "../platform/duration";

/** When ticks are due: every `ms`, or at a cron expression's times. */
export type Schedule = { kind: "interval"; ms: number } | { kind: "cron"; expression: string; cron: Cron };

/** A cron schedule (5 fields, or 6 with seconds first, croner's syntax); throws with the reason when invalid. */
export function cronSchedule(expression: string): Schedule {
  // croner also takes a seventh field (the year) and says "five, six, or seven"; the documented forms are 5 and 6.
  const fields = expression.trim().split(/\s+/).filter(Boolean).length;
  if (!expression.trim().startsWith("@") && fields !== 5 && fields !== 6) {
    throw new Error(
      `invalid cron expression "${expression}": ${fields} field(s); give 5 (minute hour day month weekday) or 6 (seconds first)`,
    );
  }
  let cron: Cron;
  try {
    cron = new Cron(expression, { paused: true });
  } catch (e) {
    throw new Error(`invalid cron expression "${expression}": ${(e as Error).message}`, { cause: e });
  }
  if (!cron.nextRun()) throw new Error(`the cron expression "${expression}" never fires again`);
  return { kind: "cron", expression, cron };
}

/**
 * When the tick after one that started at `lastStart` is due. A tick that overran its slot makes
 * the next one due at once (never two at once, never a burst of missed ones). Pure but for croner.
 */
export function nextTickAt(schedule: Schedule, lastStart: number): number {
  if (schedule.kind === "interval") return lastStart + schedule.ms;
  return schedule.cron.nextRun(new Date(lastStart))?.getTime() ?? Number.POSITIVE_INFINITY;
}

/** The schedule's period around `now`, in ms: the interval, or the gap between the cron's next two times. */
export function periodOf(schedule: Schedule, now: number): number {
  if (schedule.kind === "interval") return schedule.ms;
  const [a, b] = schedule.cron.nextRuns(2, new Date(now));
  return a && b ? b.getTime() - a.getTime() : Number.POSITIVE_INFINITY;
}

/** `every 30s` or `cron "*\/5 * * * *"`. */
export function describeSchedule(schedule: Schedule): string {
  return schedule.kind === "interval" ? `every ${formatDuration(schedule.ms)}` : `cron "${schedule.expression}"`;
}
