import { relative } from "node:path";
import type { ProbeSpec } from "../probes/probe-config";
import { readProbeRun, type ProbeRunLookup, type StoredProbeRun } from "../probes/probe-results-store";
import { UNKNOWN, type Maybe } from "../../platform/unknown-value";
import type { FactOrigin } from "./model/compliance-facts";
import { defineFactKind, type GatherContext, type ResourceContext } from "./fact-kind";
import { lastChangeOf } from "../audit/last-change";
import { redactUrl } from "../../platform/redaction";
import { endpointSettingName } from "../../platform/settings/emulator-settings";
import { carrierOf, resourcesOf } from "./carrier";

/**
 * A certificate probe of the stack (`stackwarden:probes`) and its last result. Only what a probe
 * keeps: never its parameters (personal data) nor the document.
 */
export interface ProbeFacts extends FactOrigin {
  /** The probe's name in the stack. */
  name: string;
  issuer: string;
  doctype: string;
  format: string;
  /**
   * The last run's outcome; undefined when the probe has no result yet (it has not run since it
   * was declared), UNKNOWN during a preview.
   */
  outcome: Maybe<"passed" | "failed" | undefined>;
  /** From sending the request to the whole answer, in ms. */
  latencyMs?: number;
  /** Bytes of the document, when one came back. */
  size?: number;
  /** Hex sha-256 of the document, when one came back. */
  sha256?: string;
  /** Why it failed: the issuer's error code (`record_not_found` ...) or `check-failed`, and the message. */
  error?: { code: string; message: string };
  /**
   * Why its last result says nothing of the deployment now (taken against other issuers, before
   * the stack's last apply, or longer ago than the rule's `maxAgeHours`): the rule does not judge it.
   */
  stale?: string;
}

declare module "./model/compliance-facts" {
  interface FactMap {
    probes: ProbeFacts;
  }
}

/**
 * A post-deploy probe of a certificate issuer, run by its own provider on every `pulumi up`
 * (`CertificateProbe`, providers/certificate-probe-provider.ts); its outputs carry its outcome.
 */
export const certificateProbeResource = carrierOf("certificates:CertificateProbe");

/**
 * The stack's certificate probes with their last results, as `stackwarden probe`, `apply --probe`
 * and `npm start` kept them in the probe directory (`--probe-dir`, `STACKWARDEN_PROBE_DIR`). No
 * file, or a damaged one, is no error: the probes then have no result, and the report's note says
 * why. The planned state is not deployed yet: no probe has run against it, so none is judged.
 */
export const probeResults = defineFactKind<ProbeFacts>({
  key: "probes",
  title: "last results of the stack's certificate probes",
  scope: "probe",
  carrier: certificateProbeResource,
  gather: async (ctx) => {
    const probes = ctx.stack.probes ?? [];
    if (!probes.length) return [];
    const lookup = await readProbeRun(ctx.state.probes, ctx.stackName);
    const shown = relative(ctx.cwd, lookup.path);
    if (lookup.found && isOtherStartRun(lookup.run, ctx)) {
      // `npm start` probed the emulator it embeds, gone since: nothing stale about it, just no results for these issuers.
      ctx.note(
        `post-deploy-probes has no probe results for these issuers yet (the last run was \`npm start\`'s, of its own emulator): \`stackwarden probe\` takes them`,
      );
      return probeFactsOf(probes, undefined);
    }
    const stale = lookup.found ? await staleness(lookup.run, ctx) : undefined;
    ctx.note(probeResultsNote(lookup, shown.startsWith("..") ? lookup.path : shown, stale));
    const facts = probeFactsOf(probes, lookup.found ? lookup.run : undefined);
    return stale ? facts.map((f) => (f.outcome === undefined ? f : { ...f, stale })) : facts;
  },
  planned: async () => [],
  fromResources: (resources, ctx) =>
    resourcesOf(certificateProbeResource, resources).map((r) => certificateProbeFactsOf(r.props, ctx, r.urn)),
});

/**
 * The stack's probes with their results from the last run, in the rules' terms. A probe is judged
 * by the result of the same probe: same name, issuer, doctype and format (a result of a probe the
 * stack has since changed says nothing about the new one, so it counts as no result). Results of
 * probes the stack no longer declares are left out. The location is where the stack declares the
 * probe now, not where it was when it ran.
 */
export function probeFactsOf(probes: readonly ProbeSpec[], run: StoredProbeRun | undefined): ProbeFacts[] {
  return probes.map((p) => {
    const subject = { name: p.name, issuer: p.issuer, doctype: p.doctype, format: p.format, source: p.source };
    const r = run?.results.find((x) => x.name === p.name && x.issuer === p.issuer && x.doctype === p.doctype && x.format === p.format);
    if (!r) return { ...subject, outcome: undefined };
    return {
      ...subject,
      outcome: r.outcome,
      ...(typeof r.latencyMs === "number" ? { latencyMs: r.latencyMs } : {}),
      ...(typeof r.size === "number" ? { size: r.size } : {}),
      ...(typeof r.sha256 === "string" ? { sha256: r.sha256 } : {}),
      ...(r.error ? { error: { code: String(r.error.code), message: String(r.error.message) } } : {}),
    };
  });
}

/**
 * A probe's facts from a CertificateProbe resource's outputs: its identity and what it kept
 * (outcome, latency, size, sha-256, the issuer's error). Before it has run in this deployment (a
 * preview) the outcome is unknown. Parameters are never read.
 */
export function certificateProbeFactsOf(props: Record<string, unknown>, ctx: Pick<ResourceContext, "known">, origin?: string): ProbeFacts {
  const read = (k: string): unknown => {
    const v = ctx.known(() => props[k]);
    return v === UNKNOWN ? undefined : v;
  };
  const outcome = read("outcome");
  const latencyMs = read("latencyMs");
  const size = read("size");
  const sha256 = read("sha256");
  const error = read("error") as { code?: unknown; message?: unknown } | undefined;
  return {
    name: String(read("name")),
    issuer: String(read("issuer")),
    doctype: String(read("doctype")),
    format: String(read("format") ?? "pdf"),
    // Not run yet in this deployment (a preview shows the inputs, without an outcome): unknown, never a pass.
    outcome: outcome === "passed" || outcome === "failed" ? outcome : UNKNOWN,
    ...(typeof latencyMs === "number" ? { latencyMs } : {}),
    ...(typeof size === "number" ? { size } : {}),
    ...(typeof sha256 === "string" ? { sha256 } : {}),
    ...(error && typeof error === "object"
      ? { error: { code: String(error.code ?? "unknown"), message: String(error.message ?? "") } }
      : {}),
    origin,
  };
}

/**
 * Why a stored probe run says nothing of the deployment that `check` judges now, or undefined when
 * it does. Results count only for the issuers they were taken against (the endpoint now, redacted
 * as it was stored) and only when taken after the stack's last change in its audit trail (an apply,
 * a remediation: what they proved may be gone) and, with `post-deploy-probes.maxAgeHours`, within
 * that many hours.
 */
export async function staleness(
  run: StoredProbeRun,
  ctx: Pick<GatherContext, "clients" | "state" | "stackName" | "stack">,
  now = Date.now(),
): Promise<string | undefined> {
  const here = redactUrl(ctx.clients.apisetu.endpoint);
  if (run.endpoint !== here) {
    const setting = endpointSettingName(ctx.clients.env, "STACKWARDEN_APISETU_ENDPOINT");
    return `they were taken against ${run.endpoint}, and the issuers are now ${here} (${setting.startsWith("the default") ? setting : `set by ${setting}`})`;
  }
  const taken = Date.parse(run.finishedAt);
  if (!Number.isFinite(taken)) return `their time (${run.finishedAt}) cannot be read`;
  const change = lastChangeOf(await ctx.state.audit.read(ctx.stackName).catch(() => undefined));
  if (change && taken < Date.parse(change.at)) {
    return `they were taken at ${run.finishedAt}, before the stack's last change (audit entry ${change.seq} at ${change.at})`;
  }
  const maxAgeHours = Number(ctx.stack.policies[MAX_AGE_RULE]?.maxAgeHours ?? 0);
  if (maxAgeHours > 0 && now - taken > maxAgeHours * 3_600_000) {
    return `they were taken at ${run.finishedAt}, more than ${maxAgeHours} hour(s) ago (${MAX_AGE_RULE}.maxAgeHours)`;
  }
  return undefined;
}

/**
 * Whether the stored run is `npm start`'s (`stackwarden start`, against the emulator it embeds and
 * stops) and the issuers are now elsewhere: its results say nothing of these issuers, as if none.
 */
export function isOtherStartRun(run: StoredProbeRun, ctx: Pick<GatherContext, "clients">): boolean {
  return run.command === "start" && run.endpoint !== redactUrl(ctx.clients.apisetu.endpoint);
}

/** The rule whose `maxAgeHours` setting bounds the age of probe results (read by key: facts do not import rules). */
const MAX_AGE_RULE = "post-deploy-probes";

/**
 * The report's note on the probe results `post-deploy-probes` judged: which run (what ran it,
 * when, against which endpoint, from which file), or why there are none. `shownPath` is the file
 * as the reader should see it (relative to the working directory where possible).
 */
export function probeResultsNote(lookup: ProbeRunLookup, shownPath: string, stale?: string): string {
  if (lookup.found) {
    const r = lookup.run;
    if (stale) {
      return `post-deploy-probes does not judge the last probe run (${shownPath}: \`${r.command}\`): its results are stale, ${stale}; the rule is not evaluated until \`stackwarden probe\` runs again`;
    }
    return `post-deploy-probes judges the last probe run (${shownPath}): \`${r.command}\` finished ${r.finishedAt} against ${r.endpoint}, ${r.results.length} result(s)`;
  }
  if (lookup.reason === "missing") {
    return `post-deploy-probes has no probe results to judge: ${shownPath} does not exist yet (\`stackwarden probe\`, \`apply --probe\` and \`npm start\` write it)`;
  }
  return `post-deploy-probes has no probe results to judge: ${shownPath}: ${lookup.detail ?? "unreadable"} (\`stackwarden probe\` writes it again)`;
}
