import { StatusBoard } from "../src/interfaces/watch/status/status-board";
import { startWatchServer } from "../src/interfaces/watch/watch-server";
import { STACKS, feedStack } from "./status-page-fleet";

/**
 * The status page bench's server, in a process of its own as the watcher is in production (its
 * clients are other machines): the bench's 20 clients and Chromium then measure the server's answers,
 * not their own event loop's turns, which an in-process server shared with them. Tells its parent
 * `{ url }` over IPC once it listens; on `"change"` one stack changes (answers `"changed"`); on
 * `"stop"` it closes and exits.
 */
async function main(): Promise<void> {
  const board = new StatusBoard();
  const at = new Date();
  for (let s = 0; s < STACKS; s++) feedStack(board, s, at);
  const server = await startWatchServer({
    host: "127.0.0.1",
    port: 0,
    status: board,
    readiness: () => ({ ready: true, reason: "bench" }),
    metrics: async () => ({ contentType: "text/plain", body: "" }),
  });
  process.on("message", (m: unknown) => {
    if (m === "change") {
      feedStack(board, 0, new Date());
      process.send?.("changed");
    } else if (m === "stop") void server.close().then(() => process.exit(0));
  });
  // The parent gone (killed, failed): nothing is left listening.
  process.on("disconnect", () => void server.close().then(() => process.exit(0)));
  process.send?.({ url: server.url });
}

void main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
