import { countsSentence } from "../../../domain/discovery/scope-coverage";
import type { StackStatus } from "../status/stack-status";
import { html, type HtmlValue } from "./html";

/**
 * The line in a stack's header that says what its scope covers, in check's words ("N databases in
 * scope: L listed, D discovered; X non-compliant", naming the discovered ones that fail), as of the
 * last sweep; nothing for a stack without a scope.
 */
export function coverageLine(s: Pick<StackStatus, "coverage">): HtmlValue {
  return s.coverage ? html`<p class="coverage">${countsSentence(s.coverage)}</p>` : "";
}
