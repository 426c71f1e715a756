import { UNKNOWN } from "../../../platform/unknown-value";
import type { FactMap } from "../../facts/model/compliance-facts";
import type { Finding } from "../finding";
import { defineRule, findingBase, type ResolvedSettings } from "../rule";

type ProbeFacts = FactMap["probes"];

/**
 * The subject id of a probe in findings (SARIF's logical location and fingerprint): a probe is an
 * entry of the stack, not an Azure resource, so its id is not an ARM id.
 */
export function probeSubjectId(name: string): string {
  return `stackwarden:probes/${name}`;
}

/**
 * Flags a certificate probe of the stack whose last run after a deployment failed: the issuer
 * refused or failed the request (its error code and message are in the finding), or the document
 * failed its checks. A probe with no result yet, or a stale one (taken against other issuers, before
 * the stack's last apply, or older than `maxAgeHours`), is not applicable; during a preview, unknown.
 */
export const postDeployProbes = defineRule<{ maxAgeHours: number }>({
  id: "post-deploy-probes",
  title: "Certificate issuers must issue documents after a deployment",
  description:
    "Flags a certificate probe of the stack (stackwarden:probes) whose last run failed: the issuer answered with an error, or the document it issued failed its checks (content type, a PDF page with the doctype's title, XML naming the doctype). A probe that has not run yet is not applicable.",
  help: "Read the issuer's error in the finding (record_not_found: the probe's record is gone or its parameters are wrong; invalid_authentication: the API key; 5xx: the issuer is down), fix it, and run `stackwarden probe` again; `apply --probe`, `npm start` and `pulumi up` (CertificateProbe) run the probes after a deployment.",
  defaultLevel: "advisory",
  facts: ["probes"],
  settings: {
    maxAgeHours: {
      type: "number",
      minimum: 0,
      default: 0,
      description:
        "optional, default 0 (no limit): probe results taken longer ago than this many hours are stale and not judged; results are stale anyway when taken against other issuers or before the stack's last apply",
    },
  },
  packScope: "stack",
  evaluate: (facts, settings) => facts.probes.map((p) => judge(p, settings)),
});

function judge(p: ProbeFacts, settings: ResolvedSettings<{ maxAgeHours: number }>): Finding {
  const base = findingBase(postDeployProbes, p, probeSubjectId(p.name), p.name, settings.enforcementLevel);
  const what = `${p.issuer}/${p.doctype} (${p.format})`;
  if (p.outcome === UNKNOWN) return { ...base, verdict: "unknown", message: `probe ${p.name} has not run yet in this deployment` };
  if (p.outcome === undefined) {
    return {
      ...base,
      verdict: "not-applicable",
      message: `probe ${p.name} of ${what} has no result yet: run \`stackwarden probe\` (or \`apply --probe\`) after a deployment`,
      absent: "no result yet: run `stackwarden probe`",
    };
  }
  if (p.stale) {
    return {
      ...base,
      verdict: "not-applicable",
      message: `probe ${p.name} of ${what} is not judged: its last result is stale (${p.stale}); run \`stackwarden probe\` again`,
      absent: "stale result (the note says why): run `stackwarden probe`",
    };
  }
  if (p.outcome === "passed") {
    const doc = [p.size !== undefined ? `${p.size} bytes` : undefined, p.sha256 ? `sha-256 ${p.sha256.slice(0, 16)}…` : undefined]
      .filter(Boolean)
      .join(", ");
    return {
      ...base,
      verdict: "pass",
      message: `${what} issued a document${doc ? ` (${doc})` : ""}${p.latencyMs !== undefined ? ` in ${p.latencyMs} ms` : ""}`,
    };
  }
  const why = !p.error
    ? "it failed"
    : p.error.code === "check-failed"
      ? `the document failed its check: ${p.error.message}`
      : `the issuer answered ${p.error.code}: ${p.error.message}`;
  return { ...base, verdict: "fail", message: `Probe ${p.name} must get a valid document from ${what} after a deployment; ${why}` };
}
