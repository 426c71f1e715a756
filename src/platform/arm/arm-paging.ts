import { followPages, type Pager, type RequestSpec } from "../http";

/**
 * The names of a paged list, as a spec's `x-ms-pageable` gives them: the items under `itemName`
 * (default `value`), the next page's URL under `nextLinkName` (default `nextLink`). Every list of
 * the specs in specs/ uses the defaults (or `nextLinkName: null`: no link is ever sent, and one
 * would still be followed).
 */
export interface ArmPageable {
  itemName?: string;
  nextLinkName?: string;
}

/**
 * Reads ARM list pages: `{ value: [...], nextLink }`. A `null` list reads as empty and a `null`
 * link as the last page; a body whose list is neither an array nor null is no page.
 */
export function armPager<T>({ itemName = "value", nextLinkName = "nextLink" }: ArmPageable = {}): Pager<T> {
  return (body) => {
    if (!body || typeof body !== "object") return { notAPage: `has no "${itemName}" array` };
    const page = body as Record<string, unknown>;
    const items = page[itemName];
    if (items !== null && !Array.isArray(items)) return { notAPage: `has no "${itemName}" array` };
    const link = page[nextLinkName];
    if (link !== undefined && link !== null && typeof link !== "string") {
      return { notAPage: `has a "${nextLinkName}" that is not a string` };
    }
    return { items: (items ?? []) as T[], nextLink: link || undefined };
  };
}

/** Follows ARM paging one page (one request) at a time, yielding each page's items (see `followPages`). */
export function armPages<T>(
  http: Parameters<typeof followPages>[0],
  spec: RequestSpec,
  pageable?: ArmPageable,
): AsyncGenerator<T[], void, undefined> {
  return followPages(http, spec, armPager<T>(pageable));
}
