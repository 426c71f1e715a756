import { UnknownValueError } from "@pulumi/policy";
import { UNKNOWN, type Maybe } from "../src/platform/unknown-value";

/** Reads a resource property that may be unknown during a preview (CrossGuard throws UnknownValueError on reading one). */
export function known<T>(read: () => T): Maybe<T> {
  try {
    return read();
  } catch (e) {
    if (e instanceof UnknownValueError) return UNKNOWN;
    throw e;
  }
}
