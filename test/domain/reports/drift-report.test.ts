import { describe, expect, it } from "vitest";
import { driftSectionsOf } from "../../../src/domain/compliance/drift-section";
import type { Finding } from "../../../src/domain/compliance/finding";
import { allRules, findRule } from "../../../src/domain/compliance/registry";
import { renderDrift } from "../../../src/domain/reports/drift-report";
import type { UnreadEntry } from "../../../src/domain/stack/unread-entry";

/**
 * `drift`'s three renderings, byte for byte: pipelines parse its JSON keys, pull-request comments
 * show its Markdown headings. The strings below are what the reports printed before sections were
 * declared by the rules (commit "drift-report: golden output"): a change that moves a byte here
 * changes what users read.
 */
const STACK_FILE = "stacks/Pulumi.golden.yaml";
const SUB = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg";
const finding = (over: Partial<Finding> & Pick<Finding, "ruleId" | "resourceId" | "label" | "message">): Finding => ({
  verdict: "fail",
  level: "mandatory",
  ...over,
});
const advisor: Finding[] = [
  finding({
    ruleId: "sql-tier-advisor-drift",
    resourceId: `${SUB}/providers/Microsoft.Sql/servers/s1/databases/orders`,
    label: "rg/s1/orders",
    level: "advisory",
    message: "Database rg/s1/orders should run at the advisor's tier S3",
    source: { file: STACK_FILE, line: 4, column: 7 },
  }),
  finding({
    ruleId: "sql-tier-advisor-drift",
    resourceId: `${SUB}/providers/Microsoft.Sql/servers/s1/databases/legacy`,
    label: "rg/s1/legacy",
    verdict: "exempt",
    level: "advisory",
    message: "Database rg/s1/legacy should run at the advisor's tier S0",
  }),
];
const keyCustody: Finding[] = [
  finding({
    ruleId: "tde-key-validity",
    resourceId: `${SUB}/providers/Microsoft.Sql/servers/s1`,
    label: "rg/s1",
    message: "The TDE protector key of SQL server rg/s1 must not expire within 30 days",
    source: { file: STACK_FILE, line: 4, column: 7 },
  }),
  finding({
    ruleId: "sql-tde-customer-managed-key",
    resourceId: `${SUB}/providers/Microsoft.Sql/servers/s2`,
    label: "rg/s2",
    level: "advisory",
    message: "SQL server rg/s2 must protect TDE with a customer-managed key",
  }),
];
const unread: UnreadEntry[] = [
  {
    kind: "database",
    id: `${SUB}/providers/Microsoft.Sql/servers/s1/databases/ghost`,
    label: "rg/s1/ghost",
    source: { file: STACK_FILE, line: 9, column: 7 },
    operation: "Databases_Get",
    status: 404,
    code: "ResourceNotFound",
    message: "not found",
  },
];
const tde = [
  {
    id: `${SUB}/providers/Microsoft.Sql/servers/s1/databases/orders`,
    label: "rg/s1/orders",
    live: "Disabled",
    desired: "Enabled",
    line: 4,
  },
];
/**
 * The sections the rules of these findings declare (in registry order), filled by rule id: the
 * report knows no section by name, and a section another rule declares is not part of this golden.
 */
const GOLDEN_RULES = allRules().filter((r) => [...advisor, ...keyCustody].some((f) => f.ruleId === r.id));
const sectionsWith = (findings: Finding[], rules = GOLDEN_RULES) =>
  driftSectionsOf(rules).map((section) => ({
    section,
    findings: findings.filter((f) => findRule(f.ruleId)?.drift?.key === section.key),
  }));
const input = { stackName: "golden", file: STACK_FILE, tde, sections: sectionsWith([...advisor, ...keyCustody]), unread };
const clean = { stackName: "golden", file: STACK_FILE, tde: [], sections: sectionsWith([]) };

describe("drift's reports, byte for byte", () => {
  it("json: the keys pipelines read, in their order", () => {
    expect(renderDrift("json", input)).toBe(
      JSON.stringify(
        {
          stack: "golden",
          file: STACK_FILE,
          transparentDataEncryption: tde,
          tierAdvisor: [
            {
              resourceId: advisor[0].resourceId,
              label: "rg/s1/orders",
              level: "advisory",
              verdict: "fail",
              message: "Database rg/s1/orders should run at the advisor's tier S3",
              line: 4,
            },
            {
              resourceId: advisor[1].resourceId,
              label: "rg/s1/legacy",
              level: "advisory",
              verdict: "exempt",
              message: "Database rg/s1/legacy should run at the advisor's tier S0",
            },
          ],
          keyCustody: [
            {
              ruleId: "tde-key-validity",
              resourceId: keyCustody[0].resourceId,
              label: "rg/s1",
              level: "mandatory",
              verdict: "fail",
              message: "The TDE protector key of SQL server rg/s1 must not expire within 30 days",
              line: 4,
            },
            {
              ruleId: "sql-tde-customer-managed-key",
              resourceId: keyCustody[1].resourceId,
              label: "rg/s2",
              level: "advisory",
              verdict: "fail",
              message: "SQL server rg/s2 must protect TDE with a customer-managed key",
            },
          ],
          errors: [
            {
              id: unread[0].id,
              file: STACK_FILE,
              line: 9,
              column: 7,
              operation: "Databases_Get",
              status: 404,
              code: "ResourceNotFound",
              message: "the cloud has no such database (ResourceNotFound: not found); fix the stack entry, or create the database",
            },
          ],
        },
        null,
        2,
      ),
    );
  });

  it("json: a clean run still has every declared section's key, empty, between drift's own fields", () => {
    const declared = driftSectionsOf(allRules()).map((x) => x.key);
    expect(declared).toEqual(expect.arrayContaining(["tierAdvisor", "keyCustody"]));
    expect(declared.indexOf("tierAdvisor")).toBeLessThan(declared.indexOf("keyCustody"));
    const doc = JSON.parse(renderDrift("json", { ...clean, sections: sectionsWith([], [...allRules()]) })) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(["stack", "file", "transparentDataEncryption", ...declared, "errors"]);
    for (const key of declared) expect(doc[key]).toEqual([]);
  });

  it("markdown: the headings and lines of a pull-request comment", () => {
    expect(renderDrift("markdown", input)).toBe(
      [
        "### stackwarden drift: `golden`",
        "",
        "**1** database(s) differ from the stack:",
        "- `rg/s1/orders`: TDE is Disabled, the stack wants Enabled",
        "",
        "Tier advisor:",
        "- advisory: Database rg/s1/orders should run at the advisor's tier S3",
        "- exempt: Database rg/s1/legacy should run at the advisor's tier S0",
        "",
        "Key custody:",
        "- mandatory `tde-key-validity`: The TDE protector key of SQL server rg/s1 must not expire within 30 days",
        "- advisory `sql-tde-customer-managed-key`: SQL server rg/s2 must protect TDE with a customer-managed key",
        "",
        "Could not be read:",
        `- ${STACK_FILE}:9:7: database rg/s1/ghost: the cloud has no such database (ResourceNotFound: not found); fix the stack entry, or create the database`,
      ].join("\n"),
    );
    expect(renderDrift("markdown", clean)).toBe(["### stackwarden drift: `golden`", "", "Live TDE matches the stack."].join("\n"));
  });

  it("table: one line per difference and finding, its level in capitals", () => {
    expect(renderDrift("table", input)).toBe(
      [
        `Drift of stack golden (${STACK_FILE}): 1 database(s) differ from the stack`,
        "  ~ rg/s1/orders  TDE live Disabled, desired Enabled",
        "  ADVISORY rg/s1/orders: Database rg/s1/orders should run at the advisor's tier S3",
        "  EXEMPT rg/s1/legacy: Database rg/s1/legacy should run at the advisor's tier S0",
        "  DRIFT rg/s1: The TDE protector key of SQL server rg/s1 must not expire within 30 days",
        "  ADVISORY rg/s2: SQL server rg/s2 must protect TDE with a customer-managed key",
      ].join("\n"),
    );
    expect(renderDrift("table", clean)).toBe(`Drift of stack golden (${STACK_FILE}): live TDE matches the stack`);
  });
});
