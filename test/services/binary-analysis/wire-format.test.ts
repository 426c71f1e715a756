import { compile } from "@litko/yara-x";
import { describe, expect, it } from "vitest";
import { chunkRules, matchesPerSource } from "../../../src/services/binary-analysis/rule-chunks";
import { escapeBytes, formatStringInformation, parseStringInformation } from "../../../src/services/binary-analysis/string-information";
import { declaredRules, ruleAtLine } from "../../../src/services/binary-analysis/yara-source";
import { renderPartialRule, yaraText } from "../../../src/services/binary-analysis/partial-rule-text";
import type { RuleSource } from "../../../src/services/binary-analysis/types";

const sources = (n: number): RuleSource[] =>
  Array.from({ length: n }, (_, i) => ({ name: `r${i}.yar`, source: `rule r${i} { condition: true }` }));

describe("rule chunks", () => {
  it("splits 25 sources into 10, 10 and 5, in order", () => {
    const chunks = chunkRules(sources(25));
    expect(chunks.map((c) => [c.start, c.sources.length])).toEqual([
      [0, 10],
      [10, 10],
      [20, 5],
    ]);
    expect(chunks.flatMap((c) => c.sources.map((s) => s.name))).toEqual(sources(25).map((s) => s.name));
    expect(chunkRules(sources(10))).toHaveLength(1);
    expect(chunkRules([])).toEqual([]);
  });

  it("reads the spec's per-source arrays, and attributes restful4up's flat list by rule name", () => {
    const two: RuleSource[] = [
      { name: "a.yar", source: "rule alpha { condition: true }" },
      { name: "b.yar", source: "rule beta { condition: true }\nrule gamma { condition: true }" },
    ];
    const nested = matchesPerSource(
      {
        yara_command: "x",
        is_success: true,
        matched_yara_rules: [
          [{ rule: "alpha", string_information: [] }],
          [{ rule: "gamma", string_information: ["0x10:3:$a: abc"], tags: ["t"] }],
        ],
      },
      two,
    );
    expect(nested.map((l) => l.map((m) => m.rule))).toEqual([["alpha"], ["gamma"]]);
    expect(nested[1][0]).toEqual({
      rule: "gamma",
      tags: ["t"],
      meta: {},
      strings: [{ offset: 16, length: 3, identifier: "$a", data: "abc" }],
    });
    const flat = matchesPerSource(
      {
        yara_command: "x",
        is_success: true,
        matched_yara_rules: [
          { rule: "gamma", string_information: [] },
          { rule: "alpha", string_information: [] },
        ],
      },
      two,
    );
    expect(flat.map((l) => l.map((m) => m.rule))).toEqual([["alpha"], ["gamma"]]);
    expect(matchesPerSource({ yara_command: "x", is_success: true }, two)).toEqual([[], []]);
  });
});

describe("string_information lines", () => {
  it("round-trips offset, length, identifier and data, and reads the form without a length", () => {
    const line = formatStringInformation({
      offset: 0x4e,
      length: 39,
      identifier: "$my_text_string",
      data: Buffer.from("This program cannot be run in DOS mode."),
    });
    expect(line).toBe("0x4e:39:$my_text_string: This program cannot be run in DOS mode.");
    expect(parseStringInformation(line)).toEqual({
      offset: 0x4e,
      length: 39,
      identifier: "$my_text_string",
      data: "This program cannot be run in DOS mode.",
    });
    expect(parseStringInformation("0x9724:$s: a: b")).toEqual({ offset: 0x9724, length: undefined, identifier: "$s", data: "a: b" });
    expect(parseStringInformation("not a match line")).toBeUndefined();
  });

  it("escapes bytes as the yara CLI prints them", () => {
    expect(escapeBytes(Buffer.from([0x48, 0x00, 0x22, 0x5c, 0xff, 0x41]))).toBe('H\\x00\\"\\\\\\xffA');
  });
});

describe("declared rules", () => {
  it("finds top-level rule names past comments, strings and regular expressions holding braces", () => {
    const src = [
      'import "pe"',
      "// rule commented_out { condition: true }",
      "/* rule also_commented { }",
      "*/",
      "private rule helper : tag1 {",
      '  strings: $a = "rule fake_in_string {" $r = /ab{2,3}\\}c"/ $h = { 4D 5A [2-4] ( 90 | 91 ) }',
      "  condition: $a or $r or $h",
      "}",
      "global rule second { condition: helper and filesize \\ 2 > 10 }",
      "rule third",
      "{ condition: true }",
    ].join("\n");
    const rules = declaredRules(src);
    expect(rules).toEqual([
      { name: "helper", line: 5 },
      { name: "second", line: 9 },
      { name: "third", line: 10 },
    ]);
    expect(ruleAtLine(rules, 7)?.name).toBe("helper");
    expect(ruleAtLine(rules, 11)?.name).toBe("third");
    expect(ruleAtLine(rules, 1)).toBeUndefined();
    // The source really is YARA: the engine agrees on what it declares.
    expect(() => compile(src)).not.toThrow();
  });
});

describe("partial rule text", () => {
  it("renders meta and strings, wide strings with `wide`, and no condition", () => {
    const text = renderPartialRule({
      name: "partial_sample.exe",
      meta: { date: "2026-01-01T00:00:00.000Z", md5sum: "m", sha256sum: "s", sha512sum: "x" },
      strings: [
        ["ascii_0", 'say "hi" \\ bye'],
        ["wide_1", "WideText"],
      ],
    });
    expect(text).toBe(
      [
        "rule partial_sample_exe",
        "{",
        "  meta:",
        '    date = "2026-01-01T00:00:00.000Z"',
        '    md5sum = "m"',
        '    sha256sum = "s"',
        '    sha512sum = "x"',
        "  strings:",
        '    $ascii_0 = "say \\"hi\\" \\\\ bye"',
        '    $wide_1 = "WideText" wide',
        "}",
      ].join("\n"),
    );
    expect(text).not.toContain("condition");
    // With a condition added by its author, the partial rule compiles.
    expect(() => compile(text.replace(/\}$/, "  condition:\n    any of them\n}"))).not.toThrow();
    expect(yaraText("é\t")).toBe("\\xc3\\xa9\\t");
  });
});
