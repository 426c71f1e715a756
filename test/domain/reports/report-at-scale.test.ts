import { describe, expect, it } from "vitest";
import { renderComplianceMarkdown, GITHUB_COMMENT_LIMIT } from "../../../src/domain/reports/compliance-markdown";
import { renderComplianceTable } from "../../../src/domain/reports/compliance-report";
import { renderComplianceReport } from "../../../src/domain/reports/compliance-formats";
import { isMandatoryViolation, type Finding } from "../../../src/domain/compliance/finding";
import { registerRule } from "../../../src/domain/compliance/registry";
import { defineRule, findingBase } from "../../../src/domain/compliance/rule";
import { estateInput } from "./estate-findings";

/**
 * The people's reports (table, Markdown) at an estate's scale: counts first, every failure named,
 * passes and not-applicable findings as counts unless asked for; Markdown within GitHub's comment
 * limit at 10,000 databases. JSON and SARIF keep every finding whatever the people's reports show.
 */
const labelsOf = (findings: readonly Finding[], keep: (f: Finding) => boolean) => findings.filter(keep).map((f) => f.label);
const failing = (f: Finding) => f.verdict === "fail";

/**
 * The rules whose findings these reports are judged by: what each counts is theirs, and the estate
 * is judged by them alone (every other registered rule disabled), so a new rule changes no count here.
 */
const JUDGED_BY = [
  "sql-tde-enabled",
  "sql-tier-advisor-drift",
  "sql-tde-customer-managed-key",
  "tde-key-vault-recoverable",
  "tde-key-validity",
  "tde-key-access",
];
/** The key rules of JUDGED_BY with nothing to judge on a server whose protector is service-managed: one N/A each per server. */
const KEY_RULES_NOT_APPLICABLE = ["tde-key-vault-recoverable", "tde-key-validity", "tde-key-access"];

// The proof: a rule registered here that fails every database at the mandatory level; counted, it
// would add 300 (10,000) mandatory violations and break every line below.
registerRule(
  defineRule<Record<string, never>>({
    id: "scale-toy-every-database",
    title: "A rule added after these counts were written",
    description: "Fails every database.",
    help: "None: a test's rule.",
    defaultLevel: "mandatory",
    facts: ["databases"],
    settings: {},
    packScope: "stack",
    evaluate: (facts, settings) =>
      facts.databases.map((d) => ({
        ...findingBase({ id: "scale-toy-every-database" }, d, d.id, d.database, settings.enforcementLevel),
        verdict: "fail" as const,
        message: "fails",
      })),
  }),
);

describe("300 databases on 10 servers, 5 failing", () => {
  const estate = { servers: 10, databases: 300, disabled: 5, drifting: 10 };
  const input = estateInput({ ...estate, judgedBy: JUDGED_BY });
  const { summary, findings } = input.result;

  it("the estate is what the issue describes: 5 mandatory, advisory ones, hundreds not applicable", () => {
    expect(findings.filter((f) => !JUDGED_BY.includes(f.ruleId))).toEqual([]);
    expect(summary.mandatoryViolations).toBe(estate.disabled);
    // The advisors that say something, and each server's service-managed protector.
    expect(summary.advisoryViolations).toBe(estate.drifting + estate.servers);
    // The databases without advisor output; the key rules on each service-managed server.
    expect(summary.notApplicable).toBe(estate.databases - estate.drifting + estate.servers * KEY_RULES_NOT_APPLICABLE.length);
  });

  it("the table is at most 40 lines, leads with the counts, and names every failure", () => {
    const lines = renderComplianceTable(input).split("\n");
    expect(lines.length).toBeLessThanOrEqual(40);
    expect(lines[0]).toBe(
      `Compliance of stack scale (stacks/Pulumi.scale.yaml): 5 mandatory violation(s), 20 advisory, 0 exempt, ${summary.passed} passed, 320 not applicable`,
    );
    // Per rule: its counts, mandatory and advisory failures first.
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}rule +mandatory +advisory +passed +n\/a$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}sql-tde-enabled +5 +0 +295 +0$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}sql-tier-advisor-drift +0 +10 +0 +290$/));
    for (const label of labelsOf(findings, isMandatoryViolation))
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ {2}FAIL +sql-tde-enabled +${label} +Database`)));
    for (const f of findings.filter((x) => x.verdict === "fail" && x.level === "advisory"))
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ {2}ADVISORY +${f.ruleId} +${f.label} `)));
    expect(lines.filter((l) => /^ {2}N\/A /.test(l))).toEqual([]);
    expect(lines.at(-1)).toBe(
      `  not listed: ${summary.passed} passed, 320 not applicable (--show passed,not-applicable lists them; --verbose each pass with its evidence)`,
    );
  });

  it("failures come first, by rule then server", () => {
    const rows = renderComplianceTable(input)
      .split("\n")
      .filter((l) => /^ {2}(FAIL|ADVISORY) /.test(l));
    expect(rows.slice(0, 5).every((l) => l.includes("FAIL"))).toBe(true);
    const keys = rows.map((l) => l.trim().split(/ +/).slice(0, 3).join(" "));
    const servers = rows.slice(0, 5).map((l) => l.trim().split(/ +/)[2].split("/").slice(0, 2).join("/"));
    expect(servers).toEqual([...servers].sort());
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("--show not-applicable lists them: absent-only ones one line per rule and reason; with --verbose every row", () => {
    const shown = renderComplianceTable({ ...input, show: { notApplicable: true } }).split("\n");
    expect(shown).toContainEqual(
      expect.stringMatching(
        /^ {2}N\/A +sql-tier-advisor-drift +290 finding\(s\) +no service tier advisor output \(--verbose lists each\)$/,
      ),
    );
    for (const rule of ["tde-key-vault-recoverable", "tde-key-validity", "tde-key-access"])
      expect(shown).toContainEqual(
        expect.stringMatching(new RegExp(`^ {2}N/A +${rule} +10 finding\\(s\\) +service-managed TDE protector`)),
      );
    expect(shown.length).toBeLessThanOrEqual(40);

    const every = renderComplianceTable({ ...input, show: { notApplicable: true, verbose: true } }).split("\n");
    expect(every.filter((l) => /^ {2}N\/A /.test(l))).toHaveLength(summary.notApplicable);
    expect(every).toContainEqual(
      expect.stringMatching(
        /^ {2}N\/A +sql-tier-advisor-drift +rg-data-00\/sql-prod-00\/db-00010 +no service tier advisor output for this database/,
      ),
    );
  });

  it("--show passed lists each pass by resource; --verbose with its evidence", () => {
    const passes = renderComplianceTable({ ...input, show: { passed: true } })
      .split("\n")
      .filter((l) => /^ {2}pass /.test(l));
    expect(passes).toHaveLength(summary.passed);
    expect(passes[0]).toMatch(/^ {2}pass +sql-tde-enabled +rg-data-\d\d\/sql-prod-\d\d\/db-\d{5}$/);
    const verbose = renderComplianceTable({ ...input, show: { verbose: true } })
      .split("\n")
      .filter((l) => /^ {2}pass /.test(l));
    expect(verbose).toHaveLength(summary.passed);
    expect(verbose[0]).toMatch(/ transparent data encryption is Enabled$/);
  });

  it("Markdown leads with the counts per outcome and per rule, and names every failure", () => {
    const md = renderComplianceMarkdown(input);
    expect(md).toContain(`**5** mandatory violation(s) · **20** advisory · 0 exempt · ${summary.passed} passed · 320 not applicable`);
    expect(md).toContain("| `sql-tde-enabled` | **5** | 0 | 295 | 0 |");
    for (const label of labelsOf(findings, failing)) expect(md).toContain(`\`${label}\``);
    expect(md).not.toMatch(/^\| N\/A /m);
    expect(md).toContain(`Not listed: ${summary.passed} passed, 320 not applicable (\`check --show passed,not-applicable\` lists them`);
  });

  it("JSON and SARIF keep every finding, whatever the people's reports list", () => {
    const json = renderComplianceReport(input, "json");
    expect(renderComplianceReport({ ...input, show: { notApplicable: true, passed: true, verbose: true } }, "json")).toBe(json);
    const doc = JSON.parse(json) as { findings: Record<string, unknown>[] };
    expect(doc.findings).toHaveLength(findings.length);
    expect(doc.findings.filter((f) => f.verdict === "not-applicable")).toHaveLength(summary.notApplicable);
    // What the people's reports collapse by is not part of a finding's JSON.
    expect(doc.findings.some((f) => "absent" in f)).toBe(false);
    const sarif = renderComplianceReport(input, "sarif");
    expect(renderComplianceReport({ ...input, show: { notApplicable: true, verbose: true } }, "sarif")).toBe(sarif);
    expect(sarif).not.toContain("service-managed TDE protector: no customer key to judge");
  });
});

describe("10,000 databases with 500 failures", () => {
  const estate = { servers: 40, databases: 10_000, disabled: 400, drifting: 100 };
  const input = estateInput({ ...estate, judgedBy: JUDGED_BY });
  const { summary, findings } = input.result;

  it("the Markdown stays within GitHub's comment limit and names every one of the 500 failures", () => {
    expect(summary.mandatoryViolations).toBe(estate.disabled);
    expect(summary.advisoryViolations).toBe(estate.drifting + estate.servers); // advisors, service-managed servers
    const md = renderComplianceMarkdown(input);
    expect(md.length + 1).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    // Too many for a row each: each rule's failures that say the same thing are one line per server.
    expect(md).toContain(
      "**FAIL `sql-tde-enabled`** (400): Database ‹resource› must have transparent data encryption Enabled; its live status is Disabled",
    );
    for (const f of findings.filter(failing)) {
      const name = f.label.split("/").slice(2).join("/") || f.label;
      expect(md).toContain(f.source ? `[${name.replace(/[[\]`*_]/g, (c) => `\\${c}`)}](stacks/Pulumi.scale.yaml#L${f.source.line})` : name);
    }
    expect(md).not.toMatch(/more finding\(s\) not listed here/);
  });

  it("what does not fit is counted exactly, by outcome, with where every finding is", () => {
    for (const limit of [3_000, 8_000, 20_000]) {
      const md = renderComplianceMarkdown({ ...input, markdownLimit: limit, show: { notApplicable: true, passed: true } });
      expect(md.length + 1).toBeLessThanOrEqual(limit);
      const m =
        /\*\*(\d+)\*\* more finding\(s\) not listed here \(([^)]*)\), to stay within (\d+) characters: the JSON and SARIF reports/.exec(md);
      expect(m, md.slice(-600)).not.toBeNull();
      expect(Number(m![3])).toBe(limit);
      const left = Object.fromEntries(m![2].split(", ").map((p) => [p.replace(/^\d+ /, ""), Number(/^\d+/.exec(p)![0])]));
      // Each failure is either named (in a server's line, or a row of its own) or counted as left out.
      const named = (f: Finding) => md.includes(`#L${f.source!.line})`);
      const mandatoryNamed = findings.filter(isMandatoryViolation).filter(named).length;
      expect(mandatoryNamed + (left.mandatory ?? 0)).toBe(summary.mandatoryViolations);
      expect(Number(m![1])).toBe(Object.values(left).reduce((a, b) => a + b, 0));
      // Passes and not-applicable findings asked for come after every failure: none is listed while a failure is left out.
      if (left.mandatory) expect(left.passed).toBe(summary.passed);
    }
  });

  it("the table names every failure, and lists nothing else at 10,000 databases", () => {
    const lines = renderComplianceTable(input).split("\n");
    const listed = lines.filter((l) => /^ {2}(FAIL|ADVISORY|EXEMPT|UNKNOWN|N\/A|pass) /.test(l));
    expect(listed).toHaveLength(summary.mandatoryViolations + summary.advisoryViolations);
  });
});
