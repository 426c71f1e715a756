import type { DatabaseInventory, WatchedDatabase } from "./database-inventory";
import type { DatabasePage, DatabaseQuery } from "./database-query";

/** `GET /api/v1/stacks/{name}/databases`: one page of the stack's databases, as filtered (schema: `DatabaseList`). */
export interface DatabaseList {
  stack: string;
  /** The board's revision when it was answered. */
  revision: number;
  /** When the tick that read the databases ended; null before this watcher's first tick of the stack (then `items` is empty). */
  checkedAt: string | null;
  /** The query as read (absent filters null, page and size as used). */
  query: DatabaseQuery;
  /** Databases the filters keep. */
  total: number;
  /** Databases before filtering. */
  unfiltered: number;
  page: number;
  /** Pages of `total` (at least 1); a `page` past it answers no items. */
  pages: number;
  items: readonly WatchedDatabase[];
}

/** The API's answer for one page of a stack's databases. */
export function databaseListOf(
  stack: string,
  revision: number,
  inventory: DatabaseInventory | undefined,
  page: DatabasePage,
): DatabaseList {
  return {
    stack,
    revision,
    checkedAt: inventory?.checkedAt ?? null,
    query: page.query,
    total: page.total,
    unfiltered: page.unfiltered,
    page: page.query.page,
    pages: page.pages,
    items: page.items,
  };
}
