import { UnknownValueError } from "@pulumi/policy";
import { UNKNOWN, type Maybe } from "../src/platform/unknown-value";

/**
 * Reads a resource property that may be unknown during a preview (CrossGuard throws UnknownValueError on reading one).
 * The read runs without stack traces: an UnknownValueError is an Error, and capturing its stack was
 * most of what a read of an unknown cost (the pack-1000 bench's program has unknown names on most
 * resources, read by every policy that judges them), while nothing ever reads that trace. Any
 * other error is a fault: the read runs again with traces on, so it is thrown with its stack.
 */
export function known<T>(read: () => T): Maybe<T> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return read();
  } catch (e) {
    if (e instanceof UnknownValueError) return UNKNOWN;
    Error.stackTraceLimit = limit;
    return read();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
