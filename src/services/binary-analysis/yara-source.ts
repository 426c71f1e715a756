/**
 * Just enough of YARA's lexical structure to find which rules a source declares and where:
 * comments, text strings and regular expressions are skipped, braces are counted, and `rule NAME`
 * at the top level is a declaration. Rule bodies are not parsed (the engine does that).
 */

/** A rule declared in a source, with the 1-based line of its `rule` keyword. */
export interface DeclaredRule {
  name: string;
  line: number;
}

interface Token {
  text: string;
  line: number;
  depth: number;
}

/** The rules a YARA source declares, in order. Tolerates broken sources (it reports what it can find). */
export function declaredRules(source: string): DeclaredRule[] {
  const tokens = tokenize(source);
  const out: DeclaredRule[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.depth === 0 && t.text === "rule") {
      const name = tokens[i + 1];
      if (name && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name.text)) out.push({ name: name.text, line: t.line });
    }
  }
  return out;
}

/** The rule whose declaration is the last one at or before `line` (the rule a compiler error on that line is in). */
export function ruleAtLine(rules: readonly DeclaredRule[], line: number): DeclaredRule | undefined {
  let found: DeclaredRule | undefined;
  for (const r of rules) if (r.line <= line) found = r;
  return found;
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let depth = 0;
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === "\n") {
      line++;
      i++;
    } else if (c === "/" && src[i + 1] === "/") {
      while (i < n && src[i] !== "\n") i++;
    } else if (c === "/" && src[i + 1] === "*") {
      i += 2;
      while (i < n && !(src[i] === "*" && src[i + 1] === "/")) {
        if (src[i] === "\n") line++;
        i++;
      }
      i += 2;
    } else if (c === '"') {
      const start = line;
      i++;
      while (i < n && src[i] !== '"' && src[i] !== "\n") i += src[i] === "\\" ? 2 : 1;
      i++;
      tokens.push({ text: '""', line: start, depth });
    } else if (c === "/") {
      // A regular expression (YARA divides with `\`, so a lone `/` always opens one): it may hold
      // braces and quotes that are not YARA's.
      i++;
      let inClass = false;
      while (i < n && src[i] !== "\n") {
        if (src[i] === "\\") i += 2;
        else {
          if (src[i] === "[") inClass = true;
          else if (src[i] === "]") inClass = false;
          else if (src[i] === "/" && !inClass) break;
          i++;
        }
      }
      i++;
      tokens.push({ text: "//", line, depth });
    } else if (c === "{") {
      tokens.push({ text: c, line, depth });
      depth++;
      i++;
    } else if (c === "}") {
      depth = Math.max(0, depth - 1);
      tokens.push({ text: c, line, depth });
      i++;
    } else if (/[A-Za-z0-9_$#@!]/.test(c)) {
      const start = i;
      while (i < n && /[A-Za-z0-9_$#@!*]/.test(src[i])) i++;
      tokens.push({ text: src.slice(start, i), line, depth });
    } else if (/\s/.test(c)) {
      i++;
    } else {
      tokens.push({ text: c, line, depth });
      i++;
    }
  }
  return tokens;
}
