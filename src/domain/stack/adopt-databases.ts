import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Node } from "yaml";

/**
 * Adoption as a pull request (`discover --write`, as `pulumi import --out` writes code): the
 * databases discovery found become entries of `stackwarden:databases`, spliced into the stack
 * file's text after its last entry (or as a new key after `stackwarden:subscriptionId`), in the
 * style of the entries already there (block or `{ … }`), under one comment line. Every other byte
 * of the file stays as it was, so the diff a reviewer reads is exactly the new entries.
 */

/** One entry to add: the keys of a `stackwarden:databases` item, in the order they are written. */
export interface AdoptedEntry {
  subscriptionId?: string;
  resourceGroup: string;
  server: string;
  database: string;
  transparentDataEncryption: "Enabled" | "Disabled";
}

const DATABASES = "stackwarden:databases";
const SUBSCRIPTION = "stackwarden:subscriptionId";

/** The stack file's text with `entries` added to `stackwarden:databases`; `comment` is written above them. */
export function adoptDatabases(text: string, entries: readonly AdoptedEntry[], comment: string): string {
  if (entries.length === 0) return text;
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, keepSourceTokens: true });
  const config = doc.get("config", true);
  if (!isMap(config)) throw new Error("the stack file has no `config:` mapping");
  const pair = config.items.find((p) => isScalar(p.key) && p.key.value === DATABASES);
  const seq = pair?.value;
  const columnOf = (node: Node): number => lines.linePos(node.range![0]).col - 1;
  if (pair && isSeq(seq) && !seq.flow && seq.items.length > 0) {
    const first = seq.items[0] as Node;
    // The `- ` of an item sits two columns before the item's first key.
    const indent = " ".repeat(columnOf(first) - 2);
    const flow = isMap(first) && first.flow === true;
    // After the line that ends the last item (the sequence's own range reaches into what follows it).
    const last = seq.items[seq.items.length - 1] as Node;
    const end = lineEnd(text, last.range![1] - 1);
    return text.slice(0, end) + block(entries, indent, flow, comment) + text.slice(end);
  }
  const keyNode = (pair?.key ?? config.items.find((p) => isScalar(p.key) && p.key.value === SUBSCRIPTION)?.key) as Node | undefined;
  if (!keyNode) throw new Error(`the stack file's config has no ${SUBSCRIPTION}`);
  const keyIndent = " ".repeat(columnOf(keyNode));
  const items = block(entries, `${keyIndent}  `, false, comment);
  if (pair) {
    // `stackwarden:databases: []` (or empty): the value becomes the block of new entries.
    const start = (seq as Node | null)?.range?.[0] ?? lineEnd(text, (pair.key as Node).range![1]) - 1;
    const stop = (seq as Node | null)?.range?.[1] ?? start;
    const restOfLine = lineEnd(text, stop);
    return `${text.slice(0, start).trimEnd()}\n${items}${text.slice(restOfLine)}`;
  }
  const after = lineEnd(text, (keyNode as Node).range![1]);
  return `${text.slice(0, after)}${keyIndent}${DATABASES}:\n${items}${text.slice(after)}`;
}

/** The offset just past the end of the line holding `offset` (its newline included). */
function lineEnd(text: string, offset: number): number {
  const nl = text.indexOf("\n", offset);
  return nl < 0 ? text.length : nl + 1;
}

/** The entries as sequence items at `indent`, each a block mapping or a `{ … }` one, under the comment. */
function block(entries: readonly AdoptedEntry[], indent: string, flow: boolean, comment: string): string {
  const out = [`${indent}# ${comment}`];
  for (const e of entries) {
    const pairs = Object.entries(e)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}: ${scalar(v as string)}`);
    if (flow) out.push(`${indent}- { ${pairs.join(", ")} }`);
    else out.push(`${indent}- ${pairs[0]}`, ...pairs.slice(1).map((p) => `${indent}  ${p}`));
  }
  return `${out.join("\n")}\n`;
}

/** A plain scalar when YAML reads it back as the same string, else quoted (yaml's own judgement). */
function scalar(v: string): string {
  return stringify(v, { lineWidth: 0 }).trimEnd();
}
