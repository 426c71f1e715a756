/**
 * GitHub Actions expressions (`${{ … }}`), as much of the language as the project's workflows use,
 * evaluated with GitHub's rules: loose equality with case-insensitive strings, `||`/`&&` returning
 * an operand, missing properties as null, and the status functions. Anything else (another
 * function, a filter `.*`) throws, so the runner never guesses.
 */

export type Value = null | boolean | number | string | Value[] | { [k: string]: Value } | undefined;

export interface ExpressionContext {
  contexts: Record<string, unknown>;
  /** The job's state for success() / failure() / always() / cancelled(). */
  status: { failed: boolean; cancelled?: boolean };
}

type Token = { kind: "num" | "str" | "id" | "op" | "eof"; text: string; value?: string | number };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "'") {
      let s = "";
      i++;
      for (;;) {
        if (i >= src.length) throw new Error(`unterminated string in expression: ${src}`);
        if (src[i] === "'") {
          if (src[i + 1] === "'") {
            s += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        s += src[i++];
      }
      out.push({ kind: "str", text: s, value: s });
      continue;
    }
    const num = /^(0x[0-9a-fA-F]+|-?\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(src.slice(i));
    if (num && (c !== "-" || /[\d]/.test(src[i + 1] ?? ""))) {
      out.push({ kind: "num", text: num[0], value: Number(num[0]) });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(src.slice(i));
    if (id) {
      out.push({ kind: "id", text: id[0] });
      i += id[0].length;
      continue;
    }
    const op = /^(==|!=|<=|>=|&&|\|\||[!<>().[\],*])/.exec(src.slice(i));
    if (op) {
      out.push({ kind: "op", text: op[0] });
      i += op[0].length;
      continue;
    }
    throw new Error(`unexpected "${c}" in expression: ${src}`);
  }
  out.push({ kind: "eof", text: "" });
  return out;
}

function truthy(v: Value): boolean {
  if (v === null || v === undefined || v === false || v === "" || v === 0) return false;
  if (typeof v === "number" && Number.isNaN(v)) return false;
  return true;
}

function toNumber(v: Value): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") return v;
  if (typeof v === "string") return v.trim() === "" ? 0 : Number(v);
  return NaN;
}

/** GitHub's `==`: same types compare directly (strings case-insensitively), others as numbers. */
function looseEqual(a: Value, b: Value): boolean {
  const ta = a === null || a === undefined ? "null" : typeof a;
  const tb = b === null || b === undefined ? "null" : typeof b;
  if (ta === tb) {
    if (ta === "string") return (a as string).toLowerCase() === (b as string).toLowerCase();
    if (ta === "null") return true;
    return a === b;
  }
  if (ta === "object" || tb === "object") return false;
  return toNumber(a) === toNumber(b);
}

function toText(v: Value): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(v, null, 2);
  return String(v);
}

function property(obj: Value, key: string): Value {
  if (obj === null || obj === undefined || typeof obj !== "object") return null;
  if (Array.isArray(obj)) return /^\d+$/.test(key) ? (obj[Number(key)] ?? null) : null;
  if (key in obj) return obj[key] ?? null;
  // Contexts are case-insensitive.
  const k = Object.keys(obj).find((x) => x.toLowerCase() === key.toLowerCase());
  return k === undefined ? null : (obj[k] ?? null);
}

class Parser {
  private pos = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly ctx: ExpressionContext,
    private readonly src: string,
  ) {}

  private peek(): Token {
    return this.tokens[this.pos];
  }
  private next(): Token {
    return this.tokens[this.pos++];
  }
  private expect(text: string): void {
    const t = this.next();
    if (t.text !== text) throw new Error(`expected "${text}" but found "${t.text}" in expression: ${this.src}`);
  }

  parse(): Value {
    const v = this.or();
    if (this.peek().kind !== "eof") throw new Error(`unexpected "${this.peek().text}" in expression: ${this.src}`);
    return v;
  }

  private or(): Value {
    let v = this.and();
    while (this.peek().text === "||") {
      this.next();
      const r = this.and();
      v = truthy(v) ? v : r;
    }
    return v;
  }
  private and(): Value {
    let v = this.eq();
    while (this.peek().text === "&&") {
      this.next();
      const r = this.eq();
      v = truthy(v) ? r : v;
    }
    return v;
  }
  private eq(): Value {
    let v = this.cmp();
    while (this.peek().text === "==" || this.peek().text === "!=") {
      const op = this.next().text;
      const r = this.cmp();
      v = op === "==" ? looseEqual(v, r) : !looseEqual(v, r);
    }
    return v;
  }
  private cmp(): Value {
    let v = this.unary();
    while (["<", "<=", ">", ">="].includes(this.peek().text)) {
      const op = this.next().text;
      const a = toNumber(v);
      const b = toNumber(this.unary());
      v = op === "<" ? a < b : op === "<=" ? a <= b : op === ">" ? a > b : a >= b;
    }
    return v;
  }
  private unary(): Value {
    if (this.peek().text === "!") {
      this.next();
      return !truthy(this.unary());
    }
    return this.postfix();
  }
  private postfix(): Value {
    let v = this.primary();
    for (;;) {
      const t = this.peek().text;
      if (t === ".") {
        this.next();
        const name = this.next();
        if (name.text === "*") throw new Error(`object filters (.*) are not supported: ${this.src}`);
        if (name.kind !== "id") throw new Error(`expected a property name after "." in expression: ${this.src}`);
        v = property(v, name.text);
      } else if (t === "[") {
        this.next();
        const key = this.or();
        this.expect("]");
        v = property(v, toText(key));
      } else return v;
    }
  }
  private primary(): Value {
    const t = this.next();
    if (t.kind === "num" || t.kind === "str") return t.value as Value;
    if (t.text === "(") {
      const v = this.or();
      this.expect(")");
      return v;
    }
    if (t.kind === "id") {
      if (this.peek().text === "(") {
        this.next();
        const args: Value[] = [];
        if (this.peek().text !== ")") {
          args.push(this.or());
          while (this.peek().text === ",") {
            this.next();
            args.push(this.or());
          }
        }
        this.expect(")");
        return this.call(t.text, args);
      }
      if (t.text === "true") return true;
      if (t.text === "false") return false;
      if (t.text === "null") return null;
      const root = Object.keys(this.ctx.contexts).find((k) => k.toLowerCase() === t.text.toLowerCase());
      if (root === undefined) throw new Error(`unknown context "${t.text}" in expression: ${this.src}`);
      return (this.ctx.contexts[root] ?? null) as Value;
    }
    throw new Error(`unexpected "${t.text}" in expression: ${this.src}`);
  }

  private call(name: string, args: Value[]): Value {
    const s = this.ctx.status;
    switch (name.toLowerCase()) {
      case "success":
        return !s.failed && !s.cancelled;
      case "failure":
        return s.failed;
      case "always":
        return true;
      case "cancelled":
        return !!s.cancelled;
      case "fromjson":
        return JSON.parse(toText(args[0])) as Value;
      case "tojson":
        return JSON.stringify(args[0] ?? null, null, 2);
      case "contains":
        if (Array.isArray(args[0])) return args[0].some((x) => looseEqual(x, args[1]));
        return toText(args[0]).toLowerCase().includes(toText(args[1]).toLowerCase());
      case "startswith":
        return toText(args[0]).toLowerCase().startsWith(toText(args[1]).toLowerCase());
      case "endswith":
        return toText(args[0]).toLowerCase().endsWith(toText(args[1]).toLowerCase());
      case "join":
        return Array.isArray(args[0]) ? args[0].map(toText).join(args.length > 1 ? toText(args[1]) : ",") : toText(args[0]);
      case "format":
        return toText(args[0]).replace(/\{(\d+)\}/g, (_, n: string) => toText(args[Number(n) + 1]));
      default:
        throw new Error(`function ${name}() is not supported by the test's expression evaluator: ${this.src}`);
    }
  }
}

/** Evaluates one expression (without the `${{ }}`). */
export function evaluateExpression(src: string, ctx: ExpressionContext): Value {
  return new Parser(tokenize(src), ctx, src).parse();
}

const TEMPLATE = /\$\{\{([\s\S]*?)\}\}/g;

/**
 * Evaluates a workflow value: a string that is exactly one `${{ expr }}` gives the expression's
 * value (an object stays an object, as `strategy.matrix` needs); other strings get each
 * `${{ }}` replaced by its text; other values are returned as they are.
 */
export function evaluateValue(value: unknown, ctx: ExpressionContext): Value {
  if (typeof value !== "string") return value as Value;
  const whole = /^\s*\$\{\{([\s\S]*?)\}\}\s*$/.exec(value);
  if (whole && !whole[1].includes("}}")) return evaluateExpression(whole[1], ctx);
  return value.replace(TEMPLATE, (_, expr: string) => toText(evaluateExpression(expr, ctx)));
}

/** Evaluates an `if:`, which may be written with or without `${{ }}`; absent means success(). */
export function evaluateCondition(cond: unknown, ctx: ExpressionContext): boolean {
  if (cond === undefined || cond === null) return !ctx.status.failed && !ctx.status.cancelled;
  if (typeof cond === "boolean") return cond;
  const text = String(cond).trim();
  const whole = /^\$\{\{([\s\S]*)\}\}$/.exec(text);
  const expr = whole ? whole[1] : text;
  // GitHub adds success() && … to conditions that call no status function.
  const usesStatus = /\b(success|failure|always|cancelled)\s*\(/i.test(expr);
  const v = truthy(evaluateExpression(expr, ctx));
  return usesStatus ? v : v && !ctx.status.failed && !ctx.status.cancelled;
}

/** Text of a value, as GitHub puts it into a string. */
export const valueText = toText;
