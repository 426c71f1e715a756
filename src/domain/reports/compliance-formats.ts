import { renderComplianceMarkdown } from "./compliance-markdown";
import { complianceDocument, renderComplianceTable, type ComplianceReportInput } from "./compliance-report";
import { renderJunit } from "./junit-report";
import { renderSarif } from "./sarif-report";

/** The formats a compliance report is written in. */
export const COMPLIANCE_FORMATS = ["table", "json", "sarif", "junit", "markdown"] as const;
export type ComplianceFormat = (typeof COMPLIANCE_FORMATS)[number];

/** One evaluation as a report in the given format. */
export function renderComplianceReport(input: ComplianceReportInput, format: ComplianceFormat): string {
  switch (format) {
    case "json":
      return JSON.stringify(complianceDocument(input), null, 2);
    case "sarif":
      return renderSarif(input);
    case "junit":
      return renderJunit(input);
    case "markdown":
      return renderComplianceMarkdown(input);
    default:
      return renderComplianceTable(input);
  }
}
