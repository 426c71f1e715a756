/**
 * Reads the server's requested delay, in milliseconds, from `retry-after-ms`, `x-ms-retry-after-ms`
 * (both milliseconds, preferred because they are precise) or `Retry-After` (seconds or an HTTP date).
 * Returns undefined when none is present or parseable. The two millisecond variants live here, in
 * the generic retry policy, not in the ARM layer: Azure's core-rest-pipeline reads them in its
 * generic throttling policy too, and a service that never sends them loses nothing.
 */
export function parseRetryAfterMs(
  headers: Record<string, string | string[] | undefined> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  for (const name of ["retry-after-ms", "x-ms-retry-after-ms"]) {
    const ms = numberHeader(headers[name]);
    if (ms !== undefined && ms >= 0) return ms;
  }
  const raw = first(headers["retry-after"]);
  if (raw === undefined) return undefined;
  const seconds = numberHeader(raw);
  if (seconds !== undefined) return seconds >= 0 ? seconds * 1000 : undefined;
  // An HTTP date always names its day or month; without a letter, V8's lenient Date.parse
  // would read garbage such as "-3" as a year and ask for no wait at all.
  if (!/[a-z]/i.test(raw)) return undefined;
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function numberHeader(v: string | string[] | undefined): number | undefined {
  const s = first(v)?.trim();
  if (!s || !/^\d+(\.\d+)?$/.test(s)) return undefined;
  return Number(s);
}
