import { ApiError } from "./api-error";
import type { RequestSpec } from "./request-spec";
import type { HttpTransport } from "./transport";

/** One list page as a service's convention reads it: its items and the link to the next page, or why the body is no page. */
export type PageRead<T> = { items: T[]; nextLink?: string } | { notAPage: string };

/**
 * A service's paging convention: reads one page of its lists. `src/platform/http` knows none; the
 * caller supplies one (ARM's `value`/`nextLink` is src/platform/arm/arm-paging.ts), as
 * core-paging's `getPagedAsyncIterator` takes a `getPage` from the client that knows the format.
 */
export type Pager<T> = (body: unknown) => PageRead<T>;

/**
 * Follows a service's paging one page at a time: each step is one request and yields that page's
 * items; it ends after a page without a next link. The next link is requested through the same
 * transport, without the first call's query (the link carries its own), and a link to another
 * origin is refused there (credentials never leave the configured endpoint). A body the pager says is no page is an
 * ApiError (`InvalidResponse`, `page <n> <why>`).
 */
export async function* followPages<T>(
  http: Pick<HttpTransport, "json" | "displayUrl">,
  spec: RequestSpec,
  pager: Pager<T>,
): AsyncGenerator<T[], void, undefined> {
  let next: RequestSpec | undefined = spec;
  let page = 0;
  while (next) {
    const body: unknown = await http.json(next);
    page += 1;
    const read = pager(body);
    if ("notAPage" in read) {
      throw new ApiError({
        operation: spec.operation,
        status: 200,
        code: "InvalidResponse",
        message: `page ${page} ${read.notAPage}`,
        method: spec.method,
        url: http.displayUrl(next),
      });
    }
    next = read.nextLink ? { ...spec, path: read.nextLink, query: undefined } : undefined;
    yield read.items;
  }
}
