import type { DatabaseInventory, WatchedDatabase } from "../status/database-inventory";
import { DEFAULT_PAGE_SIZE, isFiltered, queryString, type DatabasePage, type DatabaseQuery } from "../status/database-query";
import { detailTable } from "./detail-table";
import { breakable, html, type Html, type HtmlValue } from "./html";
import { none, time } from "./values-html";

// The stack page's Databases section: every database the watcher knows of (listed and discovered),
// filtered and paged on the server through a plain GET form and links, so it works without the
// page's script and stays one page long at 10,000 databases.

/** Servers offered as a choice; past this many the form asks for the name as text. */
const SERVERS_AS_CHOICE = 50;

/** What the section shows: one page of the databases, and what was read. */
export interface DatabasesView {
  page: DatabasePage;
  inventory: DatabaseInventory | undefined;
}

/** The id of the section's heading: the links of the form and the pager return to it. */
export const DATABASES_ANCHOR = "h-databases";

/** The section's content: the filter form, the count ("showing 51–100 of 2,300 (filtered from 10,000)"), the page's table, the pager. */
export function databasesSection(path: string, view: DatabasesView): Html {
  const { page, inventory } = view;
  if (!inventory)
    return html`<p>${none("listed after this watcher's first tick of the stack")}</p>
      ${filterForm(path, page.query, [])}`;
  return html`${filterForm(path, page.query, inventory.servers)}
    <p class="db-count" id="db-count">${countLine(page)}, read ${time(inventory.checkedAt)}</p>
    ${
      page.items.length
        ? detailTable({
            caption: html`Databases, page ${page.query.page} of ${page.pages}`,
            hidden: true,
            columns: ["Database", "Sync", "Compliance", "In the stack"],
            items: page.items,
            row: databaseRow,
          })
        : html`<p class="db-empty">${emptyLine(path, page)}</p>`
    }
    ${pager(path, page)}`;
}

/** `showing 51–100 of 2,300 (filtered from 10,000)`, `no database matches (of 10,000)`. */
export function countLine(page: DatabasePage): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const filtered = isFiltered(page.query) ? ` (filtered from ${n(page.unfiltered)})` : "";
  if (page.total === 0) return page.unfiltered === 0 ? "no database read yet" : `no database matches the filter${filtered}`;
  if (!page.items.length) return `${n(page.total)} database(s)${filtered}; page ${n(page.query.page)} is past the last (${n(page.pages)})`;
  const from = (page.query.page - 1) * page.query.size + 1;
  return `showing ${n(from)}–${n(from + page.items.length - 1)} of ${n(page.total)}${filtered}`;
}

function emptyLine(path: string, page: DatabasePage): HtmlValue {
  if (page.total > 0) return html`Nothing on this page: <a href="${link(path, page.query, 1)}">go to the first page</a>.`;
  return isFiltered(page.query) ? html`No database matches: <a href="${path}#${DATABASES_ANCHOR}">clear the filter</a>.` : "";
}

function filterForm(path: string, q: DatabaseQuery, servers: readonly string[]): Html {
  const choice = (name: string, current: string | null, options: readonly string[]) =>
    html`<select name="${name}" id="db-${name}">
      <option value="" ${current === null ? html` selected` : ""}>any</option>
      ${options.map((o) => html`<option value="${o}" ${current === o ? html` selected` : ""}>${o}</option>`)}
    </select>`;
  const server =
    servers.length && servers.length <= SERVERS_AS_CHOICE
      ? choice("server", q.server, q.server && !servers.includes(q.server) ? [...servers, q.server] : servers)
      : html`<input type="text" name="server" id="db-server" value="${q.server ?? ""}" placeholder="any" autocomplete="off" />`;
  return html`<form class="db-filter" method="get" action="${path}#${DATABASES_ANCHOR}" role="search" aria-label="Filter the databases">
    <label for="db-sync">Sync</label>${choice("sync", q.sync, ["drifted", "in-sync", "unknown"])}
    <label for="db-compliance">Compliance</label>${choice("compliance", q.compliance, ["non-compliant", "compliant", "unknown"])}
    <label for="db-server">Server</label>${server} <label for="db-q">Name</label
    ><input type="search" name="q" id="db-q" value="${q.q ?? ""}" placeholder="text in rg/server/database" autocomplete="off" />
    ${q.size !== DEFAULT_PAGE_SIZE ? html`<input type="hidden" name="size" value="${q.size}" />` : ""}
    <button type="submit">Filter</button>
    ${isFiltered(q) ? html`<a href="${path}#${DATABASES_ANCHOR}">Clear</a>` : ""}
  </form>`;
}

function databaseRow(d: WatchedDatabase): Html {
  return html`<th scope="row"><span class="db-name">${breakable(d.label)}</span></th>
    <td class="db-sync-${d.sync}">
      ${d.sync === "drifted" ? html`drifted: TDE ${d.live ?? "unknown"} → want ${d.desired}` : d.sync === "unknown" ? "unknown: not read" : `in sync (TDE ${d.live})`}
    </td>
    <td class="db-compliance-${d.compliance}">
      ${d.compliance}${d.mandatory || d.advisory ? html` <span class="sub-inline">(${d.mandatory} mandatory, ${d.advisory} advisory)</span>` : ""}
    </td>
    <td>${d.discovered ? "discovered in the scope" : "listed"}</td>`;
}

/** First, previous, where, next, last: links that keep the filter. */
function pager(path: string, page: DatabasePage): HtmlValue {
  const at = page.query.page;
  if (page.pages <= 1 && at === 1) return "";
  const to = (n: number, label: string, rel?: string) =>
    html`<a href="${link(path, page.query, n)}" ${rel ? html` rel="${rel}"` : ""}>${label}</a>`;
  const off = (label: string) => html`<span class="pager-off" aria-disabled="true">${label}</span>`;
  return html`<nav class="pager" aria-label="Pages of databases">
    ${at > 1 ? to(1, "« First") : off("« First")} ${at > 1 ? to(Math.min(at - 1, page.pages), "‹ Previous", "prev") : off("‹ Previous")}
    <span class="pager-at">page ${at.toLocaleString("en-US")} of ${page.pages.toLocaleString("en-US")}</span>
    ${at < page.pages ? to(at + 1, "Next ›", "next") : off("Next ›")} ${at < page.pages ? to(page.pages, "Last »") : off("Last »")}
  </nav>`;
}

function link(path: string, q: DatabaseQuery, page: number): string {
  const qs = queryString(q, page);
  return `${path}${qs ? `?${qs}` : ""}#${DATABASES_ANCHOR}`;
}
