import type { ErrorObject, ValidateFunction } from "ajv";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from "yaml";
import { YamlInputError } from "./yaml-input-error";

// The error class lives in its own module so that code which only reports it (the CLI) does not load the YAML parser.
export { YamlInputError };

/** A parsed YAML document that still knows where each value came from. */
export interface LocatedYaml {
  file: string;
  doc: Document;
  lines: LineCounter;
  value: unknown;
}

/** Parses YAML text; a syntax error becomes a YamlInputError at its line and column. Duplicate keys are errors. */
export function parseLocatedYaml(file: string, text: string): LocatedYaml {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, strict: true });
  const problem = doc.errors[0];
  if (problem) {
    const pos = lines.linePos(problem.pos[0]);
    const msg = problem.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
    throw new YamlInputError(file, pos.line, pos.col, "", `invalid YAML: ${msg}`);
  }
  return { file, doc, lines, value: doc.toJS({ maxAliasCount: 100 }) };
}

/** Line and column (1-based) of the node at a path; for a missing key, of the nearest parent. */
export function locate(y: LocatedYaml, path: readonly (string | number)[], keyOf = false): { line: number; column: number } {
  let node: unknown = y.doc.contents;
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
  const pos = y.lines.linePos(offset);
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
  const problem = describeAjvError(err);
  const at = locate(y, path, keyOf);
  return new YamlInputError(y.file, at.line, at.column, formatKeyPath(path), problem);
}

/** One ajv error in words a user of the YAML file understands. */
export function describeAjvError(err: ErrorObject): string {
  switch (err.keyword) {
    case "additionalProperties":
      return "unknown key";
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
