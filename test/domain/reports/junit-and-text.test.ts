import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import { renderComplianceMarkdown } from "../../../src/domain/reports/compliance-markdown";
import { complianceDocument, renderComplianceTable } from "../../../src/domain/reports/compliance-report";
import { renderJunit } from "../../../src/domain/reports/junit-report";
import { ruleIds } from "../../../src/domain/compliance/registry";
import { databaseLine, NOW, reportInput, STACK_FILE, SUB } from "./report-fixture";
import { emptyFacts } from "../../../src/domain/facts/gather";

type Attrs = Record<string, string>;
type TestCase = Attrs;
interface Suite {
  "@_name": string;
  "@_tests": string;
  "@_failures": string;
  "@_skipped": string;
  testcase: (TestCase & { failure?: Attrs & { "#text": string }; skipped?: Attrs; "system-out"?: string })[];
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseAttributeValue: false,
  isArray: (name) => name === "testsuite" || name === "testcase",
});

function parseJunit(xml: string): { "@_tests": string; "@_failures": string; testsuite: Suite[] } {
  return (parser.parse(xml) as { testsuites: { "@_tests": string; "@_failures": string; testsuite: Suite[] } }).testsuites;
}

describe("JUnit report", () => {
  const input = reportInput();
  const xml = renderJunit(input);
  const doc = parseJunit(xml);
  const suite = (id: string) => doc.testsuite.find((s) => s["@_name"] === `stackwarden.${id}`)!;
  const testcase = (id: string, name: string) => suite(id).testcase.find((t) => t["@_name"] === name)!;

  it("is well-formed XML with one testsuite per rule", () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(doc.testsuite.map((s) => s["@_name"])).toEqual(ruleIds().map((id) => `stackwarden.${id}`));
  });

  it("counts tests, failures and skips per suite and in total", () => {
    expect(doc["@_tests"]).toBe("8");
    expect(doc["@_failures"]).toBe("1");
    expect(
      [suite("sql-tde-enabled"), suite("sql-tier-advisor-drift"), suite("batch-quota-headroom"), suite("data-residency")].map((s) => [
        s["@_tests"],
        s["@_failures"],
        s["@_skipped"],
      ]),
    ).toEqual([
      ["3", "1", "1"],
      ["3", "0", "1"],
      ["2", "0", "0"],
      ["0", "0", "0"], // the report's stack sets no residency: nothing to place
    ]);
    // A rule with nothing to judge (no artifacts, probes or residency here) is an empty suite.
    for (const s of doc.testsuite) expect(s.testcase ?? []).toHaveLength(Number(s["@_tests"]));
  });

  it("a mandatory violation is a <failure> naming the rule and the resource", () => {
    const t = testcase("sql-tde-enabled", "rg-data/sql-prod-1/orders");
    expect(t.failure?.["@_type"]).toBe("sql-tde-enabled");
    expect(t.failure?.["@_message"]).toContain("must have transparent data encryption Enabled; its live status is Disabled");
    expect(t.failure?.["#text"]).toContain(
      `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-prod-1/databases/orders`,
    );
    expect(t["@_classname"]).toBe("stackwarden.sql-tde-enabled");
  });

  it("exempt and not-applicable are <skipped>; advisory passes with its message in <system-out>", () => {
    expect(testcase("sql-tde-enabled", "rg-data/sql-prod-1/legacy").skipped?.["@_message"]).toMatch(/^exempt: /);
    expect(testcase("sql-tier-advisor-drift", "rg-data/sql-prod-1/customers").skipped?.["@_message"]).toMatch(
      /^not-applicable: no service tier advisor output/,
    );
    const advisory = testcase("sql-tier-advisor-drift", "rg-data/sql-prod-1/orders");
    expect(advisory.failure).toBeUndefined();
    expect(advisory["system-out"]).toContain("ADVISORY: Database rg-data/sql-prod-1/orders should run at the advisor's tier");
    expect(testcase("batch-quota-headroom", "eastus/cores")["system-out"]).toContain("92 of 100");
    const pass = testcase("sql-tde-enabled", "rg-data/sql-prod-1/customers");
    expect(pass.failure ?? pass.skipped ?? pass["system-out"]).toBeUndefined();
  });

  it("escapes <, &, quotes and apostrophes, and the parser gets the text back intact", () => {
    expect(xml).toContain("decommission &lt;Q3&gt; &amp; &apos;archive&apos; &quot;soon&quot;");
    expect(xml).not.toContain("<Q3>");
    expect(testcase("sql-tde-enabled", "rg-data/sql-prod-1/legacy").skipped?.["@_message"]).toContain(
      `decommission <Q3> & 'archive' "soon"`,
    );
  });

  it("escapes resource names in attributes and element text", () => {
    const r = evaluateCompliance(
      {
        ...emptyFacts(SUB),
        databases: [
          {
            id: "/subscriptions/x/databases/a<b&c",
            resourceGroup: "rg",
            server: 's"1',
            database: "a<b&c",
            liveTdeStatus: "Disabled",
          },
        ],
      },
      resolveRuleSettings({ "sql-tier-advisor-drift": { enforcementLevel: "disabled" } }),
      [],
      NOW,
    );
    const x = renderJunit({ stackName: "x&y", file: "f", result: r, generatedAt: new Date(NOW), toolVersion: "0" });
    const d = parseJunit(x);
    expect(d.testsuite[0].testcase[0]["@_name"]).toBe('rg/s"1/a<b&c');
    expect(d.testsuite[0].testcase[0].failure?.["#text"]).toContain("/subscriptions/x/databases/a<b&c");
    expect(x).not.toMatch(/a<b/);
  });
});

describe("json, table and markdown reports", () => {
  const input = reportInput();

  it("json: summary, findings with lines, exemptions with status", () => {
    const doc = JSON.parse(JSON.stringify(complianceDocument(input))) as ReturnType<typeof complianceDocument>;
    expect(doc.stack).toBe("report");
    expect(doc.file).toBe(STACK_FILE);
    expect(doc.summary).toEqual({ mandatoryViolations: 1, advisoryViolations: 2, exempt: 1, passed: 3, notApplicable: 1, unknown: 0 });
    const orders = doc.findings.find((f) => f.ruleId === "sql-tde-enabled" && f.label === "rg-data/sql-prod-1/orders");
    expect(orders).toMatchObject({ verdict: "fail", level: "mandatory", line: databaseLine(0) });
    const legacy = doc.findings.find((f) => f.ruleId === "sql-tde-enabled" && f.label === "rg-data/sql-prod-1/legacy");
    expect(legacy).toMatchObject({ verdict: "exempt", exemption: { expires: "2025-12-31" } });
    expect(doc.exemptions).toEqual([
      expect.objectContaining({ rules: ["sql-tde-enabled"], active: true, applied: 1, expires: "2025-12-31" }),
    ]);
  });

  it("table: headline counts, counts per rule, failures first, passes and not applicable counted, exemptions listed", () => {
    const t = renderComplianceTable(input);
    const lines = t.split("\n");
    expect(lines[0]).toBe(
      `Compliance of stack report (${STACK_FILE}): 1 mandatory violation(s), 2 advisory, 1 exempt, 3 passed, 1 not applicable`,
    );
    expect(lines.slice(1, 6)).toEqual([
      "",
      "  rule                    mandatory  advisory  exempt  passed  n/a",
      "  sql-tde-enabled                 1         0       1       1    0",
      "  sql-tier-advisor-drift          0         1       0       1    1",
      "  batch-quota-headroom            0         1       0       1    0",
    ]);
    expect(lines[7]).toMatch(/^\s+FAIL\s+sql-tde-enabled\s+rg-data\/sql-prod-1\/orders\s/);
    expect(t).toMatch(/ADVISORY\s+sql-tier-advisor-drift\s+rg-data\/sql-prod-1\/orders/);
    expect(t).toMatch(/EXEMPT\s+sql-tde-enabled\s+rg-data\/sql-prod-1\/legacy/);
    expect(t).not.toMatch(/N\/A\s+sql-/);
    expect(t).not.toMatch(/\bpass\b\s+sql-/);
    expect(t).toMatch(/exemption active .*databases\/legacy: decommission .*\(until 2025-12-31\), covers 1 finding/);
    expect(lines.at(-1)).toBe(
      "  not listed: 3 passed, 1 not applicable (--show passed,not-applicable lists them; --verbose each pass with its evidence)",
    );
  });

  it("table: --show lists passes (by resource) and not-applicable findings; --verbose each pass with its evidence", () => {
    const shown = renderComplianceTable({ ...input, show: { passed: true, notApplicable: true } });
    expect(shown).toMatch(/^\s+pass\s+sql-tde-enabled\s+rg-data\/sql-prod-1\/customers$/m);
    // Not applicable only because the advisor said nothing: counted in one line per rule.
    expect(shown).toMatch(/^\s+N\/A\s+sql-tier-advisor-drift\s+1 finding\(s\)\s+no service tier advisor output \(--verbose lists each\)$/m);
    expect(shown).not.toContain("not listed");
    const verbose = renderComplianceTable({ ...input, show: { verbose: true, notApplicable: true } });
    expect(verbose).toMatch(/^\s+pass\s+sql-tde-enabled\s+rg-data\/sql-prod-1\/customers\s+transparent data encryption is Enabled$/m);
    expect(verbose).toMatch(/^\s+pass\s+batch-quota-headroom\s+eastus\/clusters\s+Clusters in eastus uses 2 of 20 \(10%\)$/m);
    expect(verbose).toMatch(
      /N\/A\s+sql-tier-advisor-drift\s+rg-data\/sql-prod-1\/customers\s+no service tier advisor output for this database/,
    );
    // Failures still come first.
    const rows = verbose.split("\n").filter((l) => /^ {2}(FAIL|ADVISORY|EXEMPT|N\/A|pass) /.test(l));
    expect(rows.map((l) => l.trim().split(/ +/)[0])).toEqual(["FAIL", "ADVISORY", "ADVISORY", "EXEMPT", "N/A", "pass", "pass", "pass"]);
  });

  it("table: an expired exemption is shown as EXPIRED and covers nothing", () => {
    const late = reportInput();
    const r = evaluateCompliance(
      {
        ...emptyFacts(SUB),
      },
      late.stack.policies,
      late.stack.exemptions,
      Date.parse("2026-01-01T00:00:00Z"),
    );
    expect(renderComplianceTable({ ...late, result: r })).toMatch(/exemption EXPIRED .*databases\/legacy/);
  });

  it("markdown: icon, counts, rows linked to the stack file's line, exemptions", () => {
    const md = renderComplianceMarkdown(input);
    expect(md.split("\n")[0]).toBe("### :x: stackwarden check: `report`");
    expect(md).toContain("**1** mandatory violation(s) · **2** advisory · 1 exempt · 3 passed · 1 not applicable");
    expect(md).toContain("| `sql-tde-enabled` | **1** | 0 | 1 | 1 | 0 |");
    expect(md).not.toMatch(/^\| N\/A /m);
    expect(md).toContain(
      "Not listed: 3 passed, 1 not applicable (`check --show passed,not-applicable` lists them; `--verbose` each pass with its evidence).",
    );
    expect(md).toContain(
      `| FAIL | \`sql-tde-enabled\` | \`rg-data/sql-prod-1/orders\` ([line ${databaseLine(0)}](${STACK_FILE}#L${databaseLine(0)})) |`,
    );
    expect(md).toContain("<details><summary>Exemptions</summary>");
    expect(md).toMatch(/\| 2025-12-31 \| active \|/);
    // Text that GitHub would take for HTML (and drop) is escaped; pipes do not break the table.
    expect(md).toContain("decommission &lt;Q3&gt; &amp; 'archive' \"soon\"");
    expect(md).not.toContain("<Q3>");
  });

  it("markdown: a clean run gets the check mark", () => {
    const r = evaluateCompliance(
      {
        ...emptyFacts(SUB),
      },
      resolveRuleSettings({}),
      [],
      NOW,
    );
    expect(renderComplianceMarkdown({ ...input, result: r }).split("\n")[0]).toBe("### :white_check_mark: stackwarden check: `report`");
  });
});
