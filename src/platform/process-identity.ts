import { hostname } from "node:os";

/** A process as a lock's holder record names it: its pid on its host. */
export interface ProcessIdentity {
  pid: number;
  host: string;
}

/**
 * This process: what the use cases hand to the domain when it takes a lock (the domain asks the
 * machine nothing itself). A lock store tells a dead holder's lock from a live one's by it.
 */
export function thisProcess(): ProcessIdentity {
  return { pid: process.pid, host: hostname() };
}
