import type { ErrorObject, ValidateFunction } from "ajv";
import {
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  visit,
  type Alias,
  type Document,
  type Node,
} from "yaml";
import { YamlInputError } from "./yaml-input-error";
import { closestName } from "../did-you-mean";
import { parsePlainYaml } from "./plain-yaml";

// The error class lives in its own module so that code which only reports it (the CLI) does not load the YAML parser.
export { YamlInputError };

/** A parsed YAML document that still knows where each value came from. */
export interface LocatedYaml {
  file: string;
  value: unknown;
  /** Line and column (1-based) of the node at a path; for a missing key, of the nearest parent (see `locate`). */
  locate(path: readonly (string | number)[], keyOf: boolean): { line: number; column: number };
}

/**
 * How much aliases may add to a document: at most this many nodes, or ten times the nodes the
 * document itself holds, whichever is more. A template reused by a thousand entries stays well
 * within it; a "billion laughs" document (aliases of aliases, growing exponentially) does not.
 */
const MAX_ALIAS_NODES = 10_000;
const MAX_ALIAS_FACTOR = 10;

/**
 * Parses YAML text. Plain text (no anchors, aliases, tags …: see plain-yaml.ts) is read by
 * the fast path, its positions from js-yaml's events, with `yaml`'s located parse behind it for a
 * position the events do not tell. Anything else is read by `yaml`, and every problem becomes a
 * YamlInputError at its line and column: syntax errors (tabs as indentation, duplicate keys,
 * several documents …) and alias errors, which the YAML library would otherwise throw without a
 * position: an alias to no anchor set before it, an alias inside the node its own anchor marks (a
 * cycle), and aliases that grow the document too much (MAX_ALIAS_NODES).
 */
export function parseLocatedYaml(file: string, text: string): LocatedYaml {
  const plain = parsePlainYaml(text);
  if (!plain) return parseWithYaml(file, text);
  let full: LocatedYaml | undefined;
  let lineStarts: number[] | undefined;
  return {
    file,
    value: plain.value,
    locate(path, keyOf) {
      const offset = plain.offsetOf(path, keyOf);
      if (offset === undefined) return (full ??= parseWithYaml(file, text)).locate(path, keyOf);
      return linePosition((lineStarts ??= lineStartsOf(text)), offset);
    },
  };
}

/** The offsets where lines start (0, then after each line feed), for `linePosition`. */
function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** Line and column (1-based) of an offset, as `yaml`'s LineCounter gives them. */
function linePosition(starts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo] + 1 };
}

/** `yaml`'s located parse, the reference: a Document with a range on every node, and every problem located (see `parseLocatedYaml`). */
export function parseWithYaml(file: string, text: string): LocatedYaml {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, strict: true });
  const at = (offset: number, problem: string) => {
    const pos = lines.linePos(offset);
    return new YamlInputError(file, pos.line, pos.col, "", `invalid YAML: ${problem}`);
  };
  const problem = doc.errors[0];
  if (problem) throw at(problem.pos[0], problem.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, ""));
  const aliases: Alias[] = [];
  visit(doc, {
    Alias(_key, node) {
      aliases.push(node);
    },
  });
  for (const alias of aliases) {
    const target = alias.resolve(doc);
    const offset = alias.range?.[0] ?? 0;
    if (!target) throw at(offset, `alias *${alias.source} refers to no anchor &${alias.source} set before it`);
    const [start, , end] = target.range ?? [0, 0, 0];
    if (offset >= start && offset < end)
      throw at(offset, `alias *${alias.source} is inside the node its anchor &${alias.source} marks (a cycle)`);
  }
  if (aliases.length > 0) checkExpansion(doc, (alias, limit) => at(alias.range?.[0] ?? 0, expansionProblem(alias, limit)));
  let value: unknown;
  try {
    // Expansion was bounded above, with a position; the library's own count would refuse without one.
    value = doc.toJS({ maxAliasCount: -1 });
  } catch (e) {
    // The checks above should leave nothing for the library to refuse; if it does, it is still located.
    throw at(aliases[0]?.range?.[0] ?? 0, (e as Error).message);
  }
  return { file, value, locate: (path, keyOf) => locateInDocument(doc, lines, path, keyOf) };
}

function expansionProblem(alias: Alias, limit: number): string {
  return `alias *${alias.source} makes the aliases add more than ${limit} nodes to the document (aliases of aliases grow it exponentially); write the values out`;
}

/**
 * Walks the document in order, counting the nodes aliases add when expanded; throws at the alias
 * that takes the count over the limit (MAX_ALIAS_NODES, or MAX_ALIAS_FACTOR × the document's own nodes).
 */
function checkExpansion(doc: Document, fail: (alias: Alias, limit: number) => Error): void {
  const sizes = new Map<unknown, number>();
  const size = (node: unknown): number => {
    if (isAlias(node)) return size(node.resolve(doc));
    if (isPair(node)) return size(node.key) + size(node.value);
    if (!isCollection(node)) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    sizes.set(node, 1); // a cycle was refused before; this only guards the recursion
    let n = 1;
    for (const item of node.items) n = Math.min(n + size(item), Number.MAX_SAFE_INTEGER);
    sizes.set(node, n);
    return n;
  };
  let own = 0;
  visit(doc, {
    Node() {
      own += 1;
    },
  });
  const limit = Math.max(MAX_ALIAS_NODES, MAX_ALIAS_FACTOR * own);
  let added = 0;
  visit(doc, {
    Alias(_key, node) {
      added += size(node);
      if (added > limit) throw fail(node, limit);
    },
  });
}

/** Line and column (1-based) of the node at a path; for a missing key, of the nearest parent. */
export function locate(y: LocatedYaml, path: readonly (string | number)[], keyOf = false): { line: number; column: number } {
  return y.locate(path, keyOf);
}

function locateInDocument(
  doc: Document,
  lines: LineCounter,
  path: readonly (string | number)[],
  keyOf: boolean,
): { line: number; column: number } {
  let node: unknown = doc.contents;
  let best: Node | undefined = node as Node | undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(seg));
      if (!pair) break;
      if (keyOf && i === path.length - 1 && isScalar(pair.key)) {
        best = pair.key;
        break;
      }
      node = pair.value;
      best = (isScalar(pair.value) || isMap(pair.value) || isSeq(pair.value) ? pair.value : pair.key) as Node;
    } else if (isSeq(node)) {
      node = node.items[Number(seg)];
      if (!node) break;
      best = node as Node;
    } else break;
  }
  const offset = best?.range?.[0] ?? 0;
  const pos = lines.linePos(offset);
  return { line: pos.line, column: pos.col };
}

/** Renders a path as `a.b[0].c`, quoting segments that are not plain identifiers. */
export function formatKeyPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

/**
 * Validates `value` (or the part of it at `root`) with an ajv validator compiled with `allErrors`;
 * the first, most specific problem becomes a located YamlInputError.
 */
export function validateLocated(
  y: LocatedYaml,
  validate: ValidateFunction,
  value: unknown = y.value,
  root: (string | number)[] = [],
): void {
  if (validate(value)) return;
  const err = pickError(validate.errors ?? []);
  throw toLocatedError(y, err, root);
}

/** Turns one ajv error into a located error (exported for validators that post-process errors). */
export function toLocatedError(y: LocatedYaml, err: ErrorObject, root: (string | number)[] = []): YamlInputError {
  const path = [...root, ...pointerToPath(err.instancePath)];
  const keyOf = err.keyword === "additionalProperties";
  if (keyOf) path.push(String(err.params.additionalProperty));
  const problem =
    keyOf && err.params.additionalProperty === "<<"
      ? "merge keys (<<) are not supported in this file: write the keys out"
      : describeAjvError(err);
  const at = locate(y, path, keyOf);
  return new YamlInputError(y.file, at.line, at.column, formatKeyPath(path), problem);
}

/**
 * One ajv error in words a user of the YAML file understands. A schema may carry an `x-rule`
 * annotation (the rule in words); with ajv's `verbose` option, a value that breaks its pattern or
 * length is then quoted with that rule instead of the raw pattern.
 */
export function describeAjvError(err: ErrorObject): string {
  const rule = (err.parentSchema as { "x-rule"?: unknown } | undefined)?.["x-rule"];
  if (typeof rule === "string" && ["pattern", "minLength", "maxLength"].includes(err.keyword)) {
    return `${JSON.stringify(err.data)} is not a valid ${rule}`;
  }
  switch (err.keyword) {
    case "additionalProperties": {
      // With ajv's `verbose` option the error carries its schema: the known keys, to suggest one.
      const known = Object.keys((err.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const near = closestName(String(err.params.additionalProperty), known);
      return near ? `unknown key; did you mean "${near}"?` : "unknown key";
    }
    case "required":
      return `missing required key "${String(err.params.missingProperty)}"`;
    case "enum":
      return `must be one of ${(err.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "type":
      return `must be ${String(err.params.type)}`;
    default:
      return err.message ?? err.keyword;
  }
}

/** ajv's errors for `anyOf`/`oneOf` are noisy; prefer the deepest, most concrete one. */
export function pickError(errors: ErrorObject[]): ErrorObject {
  const concrete = errors.filter((e) => !["anyOf", "oneOf", "if", "not"].includes(e.keyword));
  const pool = concrete.length ? concrete : errors;
  return pool.reduce((a, b) => (depth(b) > depth(a) ? b : a));
}

function depth(e: ErrorObject): number {
  return e.instancePath.split("/").length + (e.keyword === "additionalProperties" ? 1 : 0);
}

export function pointerToPath(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => {
      const seg = s.replace(/~1/g, "/").replace(/~0/g, "~");
      return /^\d+$/.test(seg) ? Number(seg) : seg;
    });
}
