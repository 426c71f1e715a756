/** The most results one page may hold (the spec: "Max = 10"). */
export const PAGE_MAX = 10;

/** The slice of the results a request asks for. */
export interface PageWindow {
  /** 0-based index of the first result. */
  offset: number;
  /** Results on the page at most. */
  limit: number;
}

/**
 * The spec's paging: `from` is numbered from 1 (below 1, or not a number, it is 1); `to` is the
 * last index, inclusive (below `from`, or not a number, it is `from + 9`); a page holds at most 10.
 */
export function pageWindow(fromParam: string | null, toParam: string | null): PageWindow {
  const fromN = integerOf(fromParam);
  const from = fromN !== undefined && fromN >= 1 ? fromN : 1;
  const toN = integerOf(toParam);
  const to = toN !== undefined && toN >= from ? Math.min(toN, from + PAGE_MAX - 1) : from + PAGE_MAX - 1;
  return { offset: from - 1, limit: to - from + 1 };
}

/** The items of one page. */
export function pageOf<T>(items: readonly T[], w: PageWindow): T[] {
  return items.slice(w.offset, w.offset + w.limit);
}

function integerOf(v: string | null): number | undefined {
  if (v === null || !/^\s*-?\d+\s*$/.test(v)) return undefined;
  return Number(v);
}
