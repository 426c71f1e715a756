/**
 * A process-wide observer of the transport's HTTP exchanges, so that a long-running process
 * (`stackwarden watch`) can count requests, retries and 429s by service without each client
 * knowing about metrics. The transport emits one event per attempt; with no subscriber it costs
 * one length check.
 */
export interface RequestEvent {
  /** The service addressed: `sql`, `batchai`, `imds`, or the base path's first segment / host. */
  service: string;
  operation: string;
  /** The response status, or 0 when no response arrived (connection error, timeout, abort). */
  status: number;
  /** 1 for the first attempt of a call, 2 for its first retry, ... */
  attempt: number;
  /** Whether the transport will send this call again after this attempt. */
  retrying: boolean;
}

export type RequestListener = (e: RequestEvent) => void;

const listeners: RequestListener[] = [];

/** Registers a listener for every attempt the transport makes; returns the function that removes it. */
export function subscribeRequestEvents(listener: RequestListener): () => void {
  listeners.push(listener);
  return () => {
    const i = listeners.indexOf(listener);
    if (i >= 0) listeners.splice(i, 1);
  };
}

/** Whether anyone listens (the transport skips building events otherwise). */
export function hasRequestListeners(): boolean {
  return listeners.length > 0;
}

/** Hands an event to every listener; a listener that throws is ignored, never the request. */
export function emitRequestEvent(e: RequestEvent): void {
  for (const l of listeners) {
    try {
      l(e);
    } catch {
      /* an observer must not break a request */
    }
  }
}

/**
 * Names the service a request goes to when its client names none (`service` of the transport): the
 * resource provider in an Azure-style path (`Microsoft.Sql` and `Provider.Sql` both give `sql`), else the
 * base URL's first path segment (`<emulator>/geocoding` gives `geocoding`), else the host.
 */
export function serviceOfRequest(base: URL, path: string): string {
  const ns = /\/providers\/[A-Za-z]+\.([A-Za-z]+)/.exec(path);
  if (ns) return ns[1].toLowerCase();
  const first = base.pathname.split("/").find(Boolean);
  if (first) return first.toLowerCase();
  return base.hostname;
}
