import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

/**
 * Runs `fn` under V8's CPU profiler when `file` is set (a bench's BENCH_PROFILE), writing the profile
 * there (open it in Chrome DevTools or speedscope): only the measured phase, not the emulator's
 * seeding or the warm-up that `node --cpu-prof` would mix in. Without `file`, just runs `fn`.
 */
export async function profilePhase<T>(file: string | undefined, fn: () => Promise<T>): Promise<T> {
  if (!file) return fn();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await fn();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}
