import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { compile, type RuleMatch, type YaraX } from "@litko/yara-x";
import { declaredRules, ruleAtLine } from "../../../services/binary-analysis/yara-source";
import { escapeBytes, formatStringInformation } from "../../../services/binary-analysis/string-information";
import type { WireRuleMatch } from "../../../services/binary-analysis/types";

/** Rule sources compiled together, with the source index that declares each rule. */
export interface CompiledRuleSet {
  rules: YaraX;
  owner: Map<string, number>;
  count: number;
}

/** A rule source that does not compile: which one, the rule it is in, and the compiler's message. */
export class RuleCompileFailure extends Error {
  constructor(
    readonly index: number,
    readonly rule: string | undefined,
    readonly compilerMessage: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(`rules[${index}] does not compile${describeWhere(rule, line, column)}: ${compilerMessage}`);
    this.name = "RuleCompileFailure";
  }
}

function describeWhere(rule?: string, line?: number, column?: number): string {
  const parts = [rule ? `in rule ${rule}` : "", line ? `line ${line}${column ? `, column ${column}` : ""}` : ""].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** The engine and its version, for `yara_command`. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a package.json outside rootDir, read once
export const ENGINE = `@litko/yara-x ${(require("@litko/yara-x/package.json") as { version: string }).version}`;

/** Reported matched strings per rule; more are counted, not listed (a pattern matching everywhere would make the answer huge). */
export const MAX_STRINGS_PER_RULE = 1000;
/** Bytes of matched data shown per string. */
const MAX_DATA_BYTES = 256;

const cache = new Map<string, CompiledRuleSet>();
const CACHE_SIZE = 16;

/**
 * Compiles the sources as one rule set, as `yara r1 r2 ... file` does (a source may use rules of an
 * earlier one). A failure is mapped back to the source, line and rule it is in. Compiled sets are
 * cached by content, so repeated scans with the same rules compile once. `include` is disabled:
 * a rule must not read the service's files.
 */
export function compileRuleSources(sources: readonly string[]): CompiledRuleSet {
  const key = createHash("sha256").update(JSON.stringify(sources)).digest("hex");
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const starts: number[] = [];
  let line = 1;
  for (const s of sources) {
    starts.push(line);
    line += s.split("\n").length;
  }
  let rules: YaraX;
  try {
    rules = compile(sources.join("\n"), { enableIncludes: false });
  } catch (e) {
    throw locateFailure((e as Error).message, sources, starts);
  }
  const owner = new Map<string, number>();
  sources.forEach((s, i) => {
    for (const r of declaredRules(s)) if (!owner.has(r.name)) owner.set(r.name, i);
  });
  const set = { rules, owner, count: sources.length };
  cache.set(key, set);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return set;
}

function locateFailure(message: string, sources: readonly string[], starts: number[]): RuleCompileFailure {
  // yara-x: "Compilation error (E025): error[E025]: unknown pattern `$b`\n --> line:1:39\n ..."
  const text = message.replace(/^Compilation error \(\w+\):\s*/, "");
  const first = text.split("\n")[0].trim();
  const at = /-->\s*line:(\d+):(\d+)/.exec(text);
  if (!at) return new RuleCompileFailure(0, undefined, first);
  const global = Number(at[1]);
  let index = 0;
  for (let i = 0; i < starts.length; i++) if (starts[i] <= global) index = i;
  const local = global - starts[index] + 1;
  const rule = ruleAtLine(declaredRules(sources[index]), local)?.name;
  return new RuleCompileFailure(index, rule, first, local, Number(at[2]));
}

/**
 * Scans a file and answers the spec's `matched_yara_rules`: one array per rule source, each match
 * with its tags, meta and `string_information` lines (offset, length, identifier, data read from the file).
 */
export async function scanWithRules(set: CompiledRuleSet, path: string): Promise<WireRuleMatch[][]> {
  const found: RuleMatch[] = await set.rules.scanFileAsync(path);
  const out: WireRuleMatch[][] = Array.from({ length: set.count }, () => []);
  if (found.length === 0) return out;
  const file = await open(path, "r");
  try {
    for (const m of found) {
      const strings: string[] = [];
      for (const s of m.matches.slice(0, MAX_STRINGS_PER_RULE)) {
        const n = Math.min(s.length, MAX_DATA_BYTES);
        const buf = Buffer.alloc(n);
        const { bytesRead } = n > 0 ? await file.read(buf, 0, n, s.offset) : { bytesRead: 0 };
        const data = escapeBytes(buf.subarray(0, bytesRead)) + (s.length > n ? "..." : "");
        strings.push(formatStringInformation({ offset: s.offset, length: s.length, identifier: s.identifier, data }));
      }
      const wire: WireRuleMatch & { strings_omitted?: number } = {
        rule: m.ruleIdentifier,
        string_information: strings,
        tags: m.tags,
        meta: m.meta as Record<string, string | number | boolean>,
      };
      if (m.matches.length > MAX_STRINGS_PER_RULE) wire.strings_omitted = m.matches.length - MAX_STRINGS_PER_RULE;
      out[set.owner.get(m.ruleIdentifier) ?? 0].push(wire);
    }
  } finally {
    await file.close();
  }
  return out;
}
