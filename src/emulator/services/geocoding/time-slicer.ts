/**
 * Long CPU work cut into slices of a few milliseconds, handing the event loop back between them,
 * so a server keeps answering while the work runs. Loops ask `due()` (cheap) on each step and
 * `await pause()` only when it says so.
 */
export interface TimeSlicer {
  /** Whether the current slice has run its time. */
  due(): boolean;
  /** Hands the event loop back, then starts a new slice. */
  pause(): Promise<void>;
}

/** Slices of `sliceMs` (default 8 ms) separated by `setImmediate`, so pending I/O runs in between. */
export function timeSlicer(sliceMs = 8): TimeSlicer {
  let start = performance.now();
  return {
    due: () => performance.now() - start >= sliceMs,
    pause: () =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          start = performance.now();
          resolve();
        }),
      ),
  };
}

/** Never pauses: for in-process use where nothing else waits (benchmarks, tests). */
export const NO_SLICING: TimeSlicer = { due: () => false, pause: () => Promise.resolve() };
