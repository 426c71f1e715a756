import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseLocatedYaml, parseWithYaml, type LocatedYaml } from "../../../src/platform/yaml/located-yaml";
import { parsePlainYaml } from "../../../src/platform/yaml/plain-yaml";
import { PROJECT_ROOT } from "../../../src/platform/version";

/**
 * The fast path (js-yaml, plain-yaml.ts) against the reference (`yaml`'s located parse): for every
 * text the fast path takes, the same value and the same line and column for every node and key.
 */

/** Every path to a node in a value, each map key's path twice: as the value's and as the key's. */
function pathsOf(value: unknown, at: (string | number)[] = []): { path: (string | number)[]; keyOf: boolean }[] {
  const out = [{ path: at, keyOf: false }];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...at, i])));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push({ path: [...at, k], keyOf: true }, ...pathsOf(v, [...at, k]));
  }
  return out;
}

/** Positions asked of the fast path, and those its events told (not `yaml` behind it). */
const told = { asked: 0, byEvents: 0 };

/** Asserts the fast path took the text and agrees with the reference on the value and every position. */
function expectSameAsReference(name: string, text: string): void {
  const reference = parseWithYaml(name, text);
  const fast: LocatedYaml = parseLocatedYaml(name, text);
  expect(fast.value, name).toEqual(reference.value);
  const events = parsePlainYaml(text)!;
  for (const { path, keyOf } of pathsOf(reference.value)) {
    told.asked += 1;
    if (events.offsetOf(path, keyOf) !== undefined) told.byEvents += 1;
    expect(fast.locate(path, keyOf), `${name} ${JSON.stringify(path)}${keyOf ? " (key)" : ""}`).toEqual(reference.locate(path, keyOf));
  }
  // A missing key: the nearest parent, on both paths.
  expect(fast.locate(["no-such-key", 3], false)).toEqual(reference.locate(["no-such-key", 3], false));
}

/** A small deterministic generator (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Plain scalars where YAML schemas disagree (1.1 vs 1.2, js-yaml's defaults vs the core schema), and ordinary ones. */
const SCALARS = [
  "1_000",
  "0b11",
  "0o17",
  "0o8",
  "0x1F",
  "0xg",
  "012",
  "+12",
  "-0",
  "1e3",
  "1E+3",
  "1.",
  ".5",
  "-.5",
  "1.0e-3",
  "1.50",
  ".inf",
  "-.Inf",
  "+.INF",
  ".NaN",
  ".nan",
  "NaN",
  "inf",
  "TRUE",
  "True",
  "tRUE",
  "yes",
  "No",
  "on",
  "OFF",
  "y",
  "~",
  "Null",
  "NULL",
  "nULL",
  "2026-01-01",
  "2026-01-01T10:00:00Z",
  "12:30",
  "1:2",
  "190:20:30",
  "a b",
  "x#y",
  "http://x/y",
  "S1",
  "rg-fleet",
  "db-00001",
  "'single ''quoted'''",
  '"double \\"quoted\\" \\t é \\u00e9"',
  '""',
  "''",
  "'123'",
  '"true"',
  "- not a seq",
  "a-b_c.d",
];
const KEYS = ["name", "resourceGroup", "1", "true", "0x10", "a b", "'quoted key'", '"k:2"', "stackwarden:databases", "x-y"];

/** A plain YAML document: block mappings and sequences, flow sequences and mappings of scalars, block scalars, comments. */
function document(next: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  const comment = () => (next() < 0.15 ? `  # note ${Math.floor(next() * 100)}` : "");
  const block = (indent: string, depth: number): string[] => {
    const n = 1 + Math.floor(next() * 4);
    const asSeq = depth > 0 && next() < 0.4;
    const lines: string[] = [];
    const used = new Set<string>();
    for (let i = 0; i < n; i++) {
      const lead = asSeq ? `${indent}- ` : `${indent}${uniqueKey(used, pick)}: `;
      const r = next();
      if (depth < 3 && r < 0.3) {
        if (asSeq) {
          const inner = block(`${indent}  `, depth + 1);
          lines.push(`${lead}${inner[0].trimStart()}`, ...inner.slice(1));
        } else lines.push(`${lead.trimEnd()}${comment()}`, ...block(`${indent}  `, depth + 1));
      } else if (r < 0.36) {
        const n = Math.floor(next() * 3);
        const flowKeys = new Set<string>();
        const pairs = Array.from(
          { length: n },
          () => `${uniqueKey(flowKeys, pick).replace(/^stackwarden:/, "s")}: ${pick(SCALARS.filter(flowSafe))}`,
        );
        lines.push(`${lead}{ ${pairs.join(", ")} }`);
      } else if (r < 0.4)
        lines.push(`${lead}[${Array.from({ length: Math.floor(next() * 3) }, () => pick(SCALARS.filter(flowSafe))).join(", ")}]`);
      else if (r < 0.45) lines.push(`${lead}${pick(["|", ">", "|-", ">+"])}`, `${indent}  line one`, `${indent}  line two`, "");
      else if (r < 0.5 && !asSeq) lines.push(lead.trimEnd());
      else lines.push(`${lead}${pick(SCALARS)}${comment()}`);
      if (next() < 0.1) lines.push(`${indent}# a comment line`);
    }
    return lines;
  };
  return `${next() < 0.3 ? "# leading comment\n" : ""}${block("", 0).join("\n")}\n`;
}

function uniqueKey(used: Set<string>, pick: <T>(xs: readonly T[]) => T): string {
  for (;;) {
    const k = `${pick(KEYS)}${used.size ? used.size : ""}`;
    if (!used.has(k)) {
      used.add(k);
      return k;
    }
  }
}

/** Scalars that mean the same inside a flow collection (no `, [ ] { } #`, `:` or a leading `-`). */
function flowSafe(s: string): boolean {
  return !/[,[\]{}#:]|^-/.test(s);
}

describe("the plain YAML fast path agrees with yaml's located parse", () => {
  it("on every YAML file in the repository it takes, value and positions (it takes most of them)", () => {
    const files = execFileSync("git", ["ls-files", "*.yaml", "*.yml"], { cwd: PROJECT_ROOT, encoding: "utf8" }).split("\n").filter(Boolean);
    let taken = 0;
    for (const file of files) {
      const text = readFileSync(join(PROJECT_ROOT, file), "utf8");
      let reference: LocatedYaml;
      try {
        reference = parseWithYaml(file, text);
      } catch {
        // A file yaml refuses is refused the same way: the fast path leaves every refusal to it.
        expect(() => parseLocatedYaml(file, text)).toThrow();
        continue;
      }
      if (!parsePlainYaml(text)) continue;
      taken += 1;
      expectSameAsReference(file, text);
      expect(reference).toBeDefined();
    }
    expect(taken).toBeGreaterThanOrEqual(files.length / 2);
  });

  it("on 400 generated documents of plain constructs and scalars the schemas disagree on", () => {
    let taken = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const text = document(random(seed));
      let refused = false;
      try {
        parseWithYaml(`seed ${seed}`, text);
      } catch {
        refused = true;
      }
      if (refused) {
        expect(() => parseLocatedYaml(`seed ${seed}`, text), `seed ${seed}`).toThrow();
        continue;
      }
      if (!parsePlainYaml(text)) continue;
      taken += 1;
      expectSameAsReference(`seed ${seed}:\n${text}`, text);
    }
    expect(taken).toBeGreaterThan(200);
    // Nearly every position came from the events themselves (an empty value's goes to yaml).
    expect(told.byEvents / told.asked).toBeGreaterThan(0.9);
  });

  it("resolves each scalar as the YAML 1.2 core schema does (not as YAML 1.1: 1_000, 0b11, yes, 2026-01-01 stay strings)", () => {
    const scalars = SCALARS.filter((s) => !s.startsWith("- "));
    const text = scalars.map((s, i) => `k${i}: ${s}`).join("\n") + "\n";
    expect(parsePlainYaml(text)).toBeDefined();
    expectSameAsReference("scalars", text);
    const v = parseLocatedYaml("scalars", text).value as Record<string, unknown>;
    const of = (s: string) => v[`k${scalars.indexOf(s)}`];
    expect(["1_000", "0b11", "0o17", "0x1F", "yes", "2026-01-01", ".inf", "+12"].map(of)).toEqual([
      "1_000",
      "0b11",
      15,
      31,
      "yes",
      "2026-01-01",
      Infinity,
      12,
    ]);
  });

  it("leaves to yaml what it does not take, with yaml's own message: duplicate keys, tabs, anchors, several documents", () => {
    expect(parsePlainYaml("a: 1\na: 2\n")).toBeUndefined();
    expect(() => parseLocatedYaml("f.yaml", "a: 1\na: 2\n")).toThrow(/f\.yaml:2:1.*Map keys must be unique/);
    expect(parsePlainYaml("a:\n\t- 1\n")).toBeUndefined();
    expect(parsePlainYaml("a: &x 1\nb: *x\n")).toBeUndefined();
    expect(parsePlainYaml("a: 1\n---\nb: 2\n")).toBeUndefined();
    expect(parsePlainYaml("~: 1\n")).toBeUndefined();
    expect(parseLocatedYaml("f.yaml", "~: 1\n").value).toEqual({ "": 1 });
    expect(parseLocatedYaml("f.yaml", "").value).toBeNull();
  });
});
