import { FAILSAFE_SCHEMA, load, Type, type State } from "js-yaml";

/**
 * The fast path of a located parse, for plain YAML: block and flow collections of scalars, which
 * is what stack files and seeds are. `yaml`'s located parse (a Document with a range on every
 * node) reads ~1.5 MB a second here: a second before the first request of a 10 000-database
 * stack, and most of the peak memory at 50 000. js-yaml reads the same text several times faster;
 * its parse events give where each node starts.
 *
 * Only text that is plain by a conservative scan takes this path, and js-yaml must accept it.
 * Anything else goes to `yaml`, whose value, checks and messages stay the reference: anchors,
 * aliases, tags, directives, merge keys, explicit keys, keys that are collections or null, several
 * documents, tabs, CRs, a BOM, very long lines, and every error. The scalars resolve as `yaml`'s
 * YAML 1.2 core schema resolves them (the same patterns, in the same order), so a value is the
 * same either way; test/platform/yaml/plain-yaml.test.ts holds both parsers to that, and to the
 * same line and column for every node, over the repository's YAML files and generated documents.
 */

/**
 * What sends a text to `yaml` (see above): an anchor, alias or tag where a node may start, an
 * explicit key, a directive, a merge key, a document marker, tabs, CRs, a BOM, `__proto__`, a
 * line of 1 000 characters. A match inside quotes or a comment (`a & b`) only costs speed.
 */
const NOT_PLAIN = /[\s[{,][&*!]|[\s[{,]\?(?:\s|$)|\n%|[\t\r\uFEFF]|<<|__proto__|\n(?:---|\.\.\.)/;
/** The same where the text starts (NOT_PLAIN looks behind a character, which is faster than `^` in multiline mode). */
const NOT_PLAIN_AT_START = /^(?:[&*!%]|\?(?:\s|$)|---|\.\.\.)/;
const LONGEST_LINE = 1000;

/** Whether a line has LONGEST_LINE characters or more (`yaml` limits implicit keys to 1 024). */
function hasLongLine(text: string): boolean {
  let start = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    if (i - start >= LONGEST_LINE) return true;
    start = i + 1;
  }
  return text.length - start >= LONGEST_LINE;
}

/** YAML 1.2 core scalars, as `yaml` (2.x, schema `core`) resolves plain ones: null, bool, int (decimal, 0o, 0x), float. */
const CORE_SCALARS = [
  new Type("tag:yaml.org,2002:null", { kind: "scalar", resolve: (s: string) => /^(?:~|[Nn]ull|NULL)?$/.test(s), construct: () => null }),
  new Type("tag:yaml.org,2002:bool", {
    kind: "scalar",
    resolve: (s: string) => /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(s),
    construct: (s: string) => s[0] === "t" || s[0] === "T",
  }),
  new Type("tag:yaml.org,2002:int", {
    kind: "scalar",
    resolve: (s: string) => /^0o[0-7]+$/.test(s) || /^[-+]?[0-9]+$/.test(s) || /^0x[0-9a-fA-F]+$/.test(s),
    construct: (s: string) =>
      s.startsWith("0o") ? parseInt(s.slice(2), 8) : s.startsWith("0x") ? parseInt(s.slice(2), 16) : parseInt(s, 10),
  }),
  new Type("tag:yaml.org,2002:float", {
    kind: "scalar",
    resolve: (s: string) =>
      /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(s) ||
      /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(s) ||
      /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(s),
    construct: (s: string) =>
      /^[-+]?\.(?:inf|Inf|INF)$/.test(s) ? (s[0] === "-" ? -Infinity : Infinity) : /nan$/i.test(s) ? NaN : parseFloat(s),
  }),
];
const CORE_SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: CORE_SCALARS });

/** A node as the parse events bracket it: where its open event was, what it became, and the nodes opened inside it. */
interface EventNode {
  open: number;
  kind: string;
  result: unknown;
  children: EventNode[];
  /** The children unwrapped (`innerOf`), worked out once: a path is walked for every entry of a long list. */
  inner?: EventNode[];
}

/** A plain text's value, and where the node at a path starts (an offset), when it can tell. */
export interface PlainYaml {
  value: unknown;
  /** The offset of the node at `path` (its key with `keyOf`); undefined when the events do not say it plainly (then ask `yaml`). */
  offsetOf(path: readonly (string | number)[], keyOf: boolean): number | undefined;
}

/** The text's value and node offsets by js-yaml; undefined when the text is not plain or js-yaml refuses it (ask `yaml`, which says why). */
export function parsePlainYaml(text: string): PlainYaml | undefined {
  if (NOT_PLAIN_AT_START.test(text) || NOT_PLAIN.test(text) || hasLongLine(text)) return undefined;
  const root: EventNode = { open: 0, kind: "", result: undefined, children: [] };
  const open: EventNode[] = [root];
  let value: unknown;
  try {
    value = load(text, {
      schema: CORE_SCHEMA,
      listener(event: "open" | "close", state: State) {
        if (event === "open") {
          const node: EventNode = { open: state.position, kind: "", result: undefined, children: [] };
          open[open.length - 1].children.push(node);
          open.push(node);
        } else {
          const node = open.pop()!;
          node.kind = state.kind;
          node.result = state.result;
        }
      },
    });
  } catch {
    return undefined;
  }
  const top = root.children[0] && unwrap(root.children[0]);
  if (!top || !keysArePlain(top)) return undefined;
  return {
    // An empty document is null, as `yaml` gives it.
    value: value === undefined ? null : value,
    offsetOf: (path, keyOf) => offsetAt(text, top, path, keyOf),
  };
}

/**
 * The node itself rather than the attempts around it: js-yaml opens a node for a block mapping's
 * first key before it knows there is one (`- [a]`, `- { b: 1 }` as sequence items), and that node
 * becomes what it held. A node whose only inner node is the same value is that inner node.
 */
function unwrap(node: EventNode): EventNode {
  while (node.children.length === 1 && Object.is(node.children[0].result, node.result)) node = node.children[0];
  return node;
}

/** A node's children, each unwrapped. */
function innerOf(node: EventNode): EventNode[] {
  return (node.inner ??= node.children.map(unwrap));
}

/**
 * Whether every mapping's keys are plain scalars, each with its value: its nodes pair up as key and
 * value. A collection as a key, a null key (`yaml` names it "", js-yaml "null") or a flow key
 * without a value (`{ a, b: 1 }`) is left to `yaml`.
 */
function keysArePlain(node: EventNode): boolean {
  const inner = innerOf(node);
  if (node.kind === "mapping") {
    if (inner.length !== 2 * Object.keys(node.result as object).length) return false;
    for (let k = 0; k < inner.length; k += 2) if (inner[k].kind !== "scalar" || inner[k].result === null) return false;
  }
  return inner.every(keysArePlain);
}

/**
 * Walks the events to the node at `path`: a mapping's nodes are its keys and values in turn, a
 * sequence's its items. Anything else (a node whose events do not pair up so, a missing key, an
 * empty value) is undefined, and the caller asks `yaml`.
 */
function offsetAt(text: string, top: EventNode, path: readonly (string | number)[], keyOf: boolean): number | undefined {
  let node = top;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const inner = innerOf(node);
    if (node.kind === "mapping") {
      let at = -1;
      for (let k = 0; k < inner.length; k += 2) {
        if (String(inner[k].result) === String(seg)) {
          at = k;
          break;
        }
      }
      // The pairing was checked when parsed (keysArePlain); the value must be the one the key holds.
      if (at < 0 || !Object.is(inner[at + 1]?.result, (node.result as Record<string, unknown>)[String(seg)])) return undefined;
      if (keyOf && i === path.length - 1) return contentStart(text, inner[at].open);
      node = inner[at + 1];
    } else if (node.kind === "sequence") {
      const items = node.result as unknown[];
      if (typeof seg !== "number" || inner.length !== items.length || !inner[seg] || !Object.is(inner[seg].result, items[seg]))
        return undefined;
      node = inner[seg];
    } else return undefined;
  }
  if (node.result === null) return undefined;
  return contentStart(text, node.open);
}

/** Where a node's content starts: its open event comes before the spaces, line breaks and comments that precede it. */
function contentStart(text: string, from: number): number {
  let i = from;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a) i++;
    else if (c === 0x23 /* # */) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a) i++;
    } else return i;
  }
}
