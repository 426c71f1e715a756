import { declaredRules } from "./yara-source";
import { parseStringInformation } from "./string-information";
import { MAX_RULES_PER_REQUEST, type ApplyYaraRuleResult, type RuleSource, type WireRuleMatch, type YaraRuleMatch } from "./types";

/** One request's share of the rule sources. */
export interface RuleChunk {
  /** Index (in the caller's list) of the chunk's first source. */
  start: number;
  sources: RuleSource[];
}

/** Splits rule sources into consecutive chunks of at most `size` (the spec's ten), keeping order. */
export function chunkRules(sources: readonly RuleSource[], size = MAX_RULES_PER_REQUEST): RuleChunk[] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  const out: RuleChunk[] = [];
  for (let start = 0; start < sources.length; start += size) out.push({ start, sources: sources.slice(start, start + size) });
  return out;
}

/** Parses one wire match (tolerant: missing arrays read as empty, unparsable lines are kept as data). */
export function parseWireMatch(w: WireRuleMatch): YaraRuleMatch {
  const info = Array.isArray(w.string_information) ? w.string_information : [];
  return {
    rule: String(w.rule),
    tags: Array.isArray(w.tags) ? w.tags.map(String) : [],
    meta: w.meta && typeof w.meta === "object" ? { ...w.meta } : {},
    strings: info.map((line) => parseStringInformation(String(line)) ?? { identifier: "", offset: -1, data: String(line) }),
  };
}

/**
 * The matches of each source of one request, in the request's order. The spec's shape is one
 * array per source; a flat list (restful4up's own output) is attributed by rule name to the source
 * that declares the rule, and a rule no source declares goes to the first.
 */
export function matchesPerSource(result: ApplyYaraRuleResult, sources: readonly RuleSource[]): YaraRuleMatch[][] {
  const out: YaraRuleMatch[][] = sources.map(() => []);
  const matched = Array.isArray(result.matched_yara_rules) ? result.matched_yara_rules : [];
  if (matched.length === 0) return out;
  if (matched.every((m) => Array.isArray(m))) {
    (matched as WireRuleMatch[][]).forEach((list, i) => {
      if (i < out.length) out[i].push(...list.filter((m) => m && typeof m === "object").map(parseWireMatch));
    });
    return out;
  }
  const owner = new Map<string, number>();
  sources.forEach((s, i) => {
    for (const r of declaredRules(s.source)) if (!owner.has(r.name)) owner.set(r.name, i);
  });
  for (const m of matched.flat()) {
    if (!m || typeof m !== "object") continue;
    const parsed = parseWireMatch(m);
    out[owner.get(parsed.rule) ?? 0].push(parsed);
  }
  return out;
}
