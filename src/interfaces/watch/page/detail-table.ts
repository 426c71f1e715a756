import { escapeHtml, html, trustedHtml, type Html, type HtmlValue } from "./html";

/**
 * A table of the stack's page: its caption (for screen readers only when `hidden`), a header row,
 * and one row per item, whose first cell is the row's header (`<th scope="row">`, written by `row`).
 */
export function detailTable<T>(t: {
  caption: HtmlValue;
  hidden?: boolean;
  columns: readonly string[];
  items: readonly T[];
  row: (item: T) => Html;
}): Html {
  return html`<table>
      <caption${t.hidden ? html` class="visually-hidden"` : ""}>
        ${t.caption}
      </caption>
      <thead>
        <tr>
          ${t.columns.map((c) => html`<th scope="col">${c}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${t.items.map(
          (item) =>
            html`<tr>
              ${labelled(t.row(item), t.columns)}
            </tr>`,
        )}
      </tbody>
    </table>`;
}

/**
 * A row's cells, each `<td>` labelled with its column (`data-label`): below 760 px the tables of a
 * stack's page become cards, and each value shows its column's name before it.
 */
function labelled(row: Html, columns: readonly string[]): Html {
  let k = 0;
  return trustedHtml(row.markup.replace(/<td(?=[\s>])/g, () => `<td data-label="${escapeHtml(columns[++k] ?? "")}"`));
}

/** The table when there is something to list, else nothing. */
export function detailTableOf<T>(t: Parameters<typeof detailTable<T>>[0]): HtmlValue {
  return t.items.length ? detailTable(t) : "";
}
