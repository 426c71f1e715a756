/** How often a long-running command looks whether the process that started it is still there, in ms. */
const PARENT_POLL_MS = 500;

/** Set to `1` to let a long-running command outlive the process that started it (nohup, a double-forking launcher). */
export const OUTLIVE_PARENT_VAR = "STACKWARDEN_OUTLIVE_PARENT";

/**
 * Calls `stop` with the reason whenever a long-running command (emulator, watch) is told to stop:
 * SIGINT or SIGTERM, or the process that started it going away. The last matters because of how
 * `npx stackwarden emulator &` runs: npm exec starts `sh -c stackwarden …`, passes SIGTERM to that
 * shell, and the shell exits without passing it on, so node was re-parented and kept its port.
 * Once its parent is gone (it is re-parented), the command stops as on SIGTERM. A process started
 * by PID 1 (a container's entry point, a service manager) is not watched, nor one with
 * STACKWARDEN_OUTLIVE_PARENT=1. Returns what removes the handlers and the watch.
 */
export function onStopRequest(stop: (reason: string) => void, env: NodeJS.ProcessEnv = process.env): () => void {
  const onSignal = (signal: NodeJS.Signals) => stop(`received ${signal}`);
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const parent = process.ppid;
  let timer: NodeJS.Timeout | undefined;
  if (parent > 1 && env[OUTLIVE_PARENT_VAR] !== "1") {
    timer = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(timer);
      stop(`the process that started it (pid ${parent}) is gone`);
    }, PARENT_POLL_MS);
    // The watch alone never keeps the process alive.
    timer.unref();
  }
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (timer) clearInterval(timer);
  };
}
