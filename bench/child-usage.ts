/**
 * Loaded with `--require` into a process a bench measures (the CLI as a pipeline runs it): when the
 * process exits it writes its own CPU time and peak RSS to the file BENCH_USAGE_FILE names, so the
 * bench can charge the CLI's CPU to the CLI alone (the emulator runs in another process). With
 * BENCH_READS_FILE set it also records every GET the process sends (origin and path, through
 * undici's diagnostics channel, a push per request), so a bare client can replay the same reads;
 * with BENCH_TIMES_FILE, when it created each request, so a bench can show where its send rate fell
 * short of the throttle's.
 */
import { subscribe } from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";

/** What the measured process reports about itself. */
export interface ChildUsage {
  /** User + system CPU time of the whole process, in microseconds. */
  cpuMicros: number;
  /** Of which in the kernel (system time: socket writes, wake-ups), in microseconds. */
  systemMicros: number;
  /** Peak resident set size, in bytes. */
  maxRssBytes: number;
  /** When the process sent its first request and had the headers of its last answer, ms since it started (its start-up and its tail beside the reads). */
  firstRequestMs?: number;
  lastAnswerMs?: number;
}

const usageFile = process.env.BENCH_USAGE_FILE;
const readsFile = process.env.BENCH_READS_FILE;
const timesFile = process.env.BENCH_TIMES_FILE;
const reads: string[] = [];
/** With BENCH_TIMES_FILE: when each request was created (ms since start), its method and path (no query: it may hold a key), for a timeline of the send rate. */
const times: string[] = [];
let firstRequestMs: number | undefined;
let lastAnswerMs: number | undefined;

subscribe("undici:request:create", (message) => {
  const now = performance.now();
  firstRequestMs ??= now;
  const { request } = message as { request: { method: string; origin: string; path: string } };
  if (timesFile) times.push(`${now.toFixed(1)} ${request.method} ${request.path.split("?")[0]}`);
  if (!readsFile) return;
  if (request.method === "GET") reads.push(`${request.origin}${request.path}`);
});
subscribe("undici:request:headers", () => {
  lastAnswerMs = performance.now();
});

process.on("exit", () => {
  if (usageFile) {
    const cpu = process.cpuUsage();
    const usage: ChildUsage = {
      cpuMicros: cpu.user + cpu.system,
      systemMicros: cpu.system,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      firstRequestMs,
      lastAnswerMs,
    };
    writeFileSync(usageFile, JSON.stringify(usage));
  }
  if (readsFile) writeFileSync(readsFile, reads.join("\n"));
  if (timesFile) writeFileSync(timesFile, times.join("\n"));
});
