import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import { mapBounded } from "../../platform/bounded-map";
import { CallFailure } from "../../platform/errors/call-failure";
import { redactUrl } from "../../platform/redaction";
import type { Doctype } from "../../services/certificates/catalogue";
import type { CertificateParametersByDoctype, FormatsByDoctype, IssuedDocument } from "../../services/certificates/types";
import { isRealApiSetu, type ApiSetuSettings } from "../../services/certificates/settings";
import { checkContentType, checkPdf, checkXml, type DocumentVerdict } from "./document-checks";
import type { ProbeSourceLocation, ProbeSpec } from "./probe-config";
import { redactValues } from "./redact-values";
import { resolveProbeParameters } from "./resolve-parameters";

/**
 * What is kept of one probe: its identity from the stack, the outcome, the latency, and of the
 * document only its size and sha-256. A failure keeps the issuer's error (its status, code and
 * description) or what the check found wrong. No parameter and no document content is kept.
 */
export interface ProbeResult {
  name: string;
  issuer: string;
  doctype: string;
  format: string;
  outcome: "passed" | "failed";
  /** From sending the request to the whole answer, in ms. */
  latencyMs: number;
  /** HTTP status of the answer; absent when none arrived. */
  status?: number;
  /** Bytes of the document, when one came back. */
  size?: number;
  /** Hex sha-256 of the document, when one came back. */
  sha256?: string;
  /** Why it failed: the issuer's error code (`record_not_found` ...) or `check-failed`, and a message. */
  error?: { code: string; message: string };
  /** Where the stack file declares the probe. */
  source?: ProbeSourceLocation;
}

/** The results of a run of a stack's probes. */
export interface ProbeRun {
  /** The issuers' endpoint, redacted. */
  endpoint: string;
  startedAt: string;
  results: ProbeResult[];
  passed: number;
  failed: number;
}

/** What a probe asks of the certificate issuers: one document (the certificates client is one). */
export interface CertificateIssuer {
  issue<D extends Doctype>(
    doctype: D,
    request: { certificateParameters: CertificateParametersByDoctype[D]; format?: FormatsByDoctype[D] },
  ): Promise<IssuedDocument>;
}

export interface RunProbesOptions {
  /** Where the probes' parameters come from (`${env:NAME}`). */
  env: NodeJS.ProcessEnv;
  /** The issuers' settings and client (from the client set; the client is asked for only when there are probes). */
  clients: { readonly apisetu: ApiSetuSettings; readonly certificates: CertificateIssuer };
  /** Probes in flight at once. Default 4. */
  concurrency?: number;
}

/** A stack's probes, checked and ready to send: everything that could keep one from running was checked. */
export interface PreparedProbes {
  /** The issuers' endpoint, redacted. */
  endpoint: string;
  /** How many probes will run. */
  count: number;
  /** Sends every probe and checks its document; issuer errors and failed checks are results, not exceptions. */
  run(): Promise<ProbeRun>;
}

/**
 * Checks everything that can be wrong before a request (settings, keys, every parameter of every
 * probe) and throws a SettingsError when one probe cannot run, so nothing is sent. `apply --probe`
 * calls it before it changes anything, so a probe that could not run stops the apply up front.
 */
export function prepareProbes(probes: readonly ProbeSpec[], opts: RunProbesOptions): PreparedProbes {
  const settings = opts.clients.apisetu;
  const endpoint = redactUrl(settings.endpoint);
  if (probes.length === 0) {
    return { endpoint, count: 0, run: async () => ({ endpoint, startedAt: new Date().toISOString(), results: [], passed: 0, failed: 0 }) };
  }
  // The client needs both keys: asking for it now throws a SettingsError naming a missing one, before anything is sent.
  const client = opts.clients.certificates;
  const allowDemoDefaults = !isRealApiSetu(settings.endpoint);
  const prepared = probes.map((probe) => ({
    probe,
    parameters: resolveProbeParameters(probe, opts.env, { allowDemoDefaults, endpoint }),
  }));
  return {
    endpoint,
    count: probes.length,
    async run() {
      const startedAt = new Date().toISOString();
      const results = await mapBounded(prepared, opts.concurrency ?? 4, ({ probe, parameters }) => runProbe(client, probe, parameters));
      const passed = results.filter((r) => r.outcome === "passed").length;
      return { endpoint, startedAt, results, passed, failed: results.length - passed };
    },
  };
}

/** Issues one probe's document and checks it; never throws for what the issuer answered. */
export async function runProbe(client: CertificateIssuer, probe: ProbeSpec, parameters: Record<string, string>): Promise<ProbeResult> {
  const base = { name: probe.name, issuer: probe.issuer, doctype: probe.doctype, format: probe.format };
  // An issuer (or a parser) that echoes a parameter in its error must not carry it into output or state.
  const values = Object.values(parameters);
  const source = probe.source ? { source: probe.source } : {};
  const started = performance.now();
  let doc: IssuedDocument;
  try {
    doc = await client.issue(probe.doctype, {
      format: probe.format as never,
      certificateParameters: parameters as unknown as CertificateParametersByDoctype[typeof probe.doctype],
    });
  } catch (e) {
    const latencyMs = Math.round(performance.now() - started);
    if (e instanceof CallFailure) {
      return {
        ...base,
        outcome: "failed",
        latencyMs,
        ...(e.status ? { status: e.status } : {}),
        error: { code: redactValues(e.code, values), message: redactValues(e.detail, values) },
        ...source,
      };
    }
    throw e;
  }
  const latencyMs = Math.round(performance.now() - started);
  const kept = { size: doc.bytes.length, sha256: createHash("sha256").update(doc.bytes).digest("hex") };
  const verdict = await checkDocument(doc);
  return verdict.ok
    ? { ...base, outcome: "passed", latencyMs, status: doc.status, ...kept, ...source }
    : {
        ...base,
        outcome: "failed",
        latencyMs,
        status: doc.status,
        ...kept,
        error: { code: "check-failed", message: redactValues(verdict.reason, values) },
        ...source,
      };
}

/** The checks of a probe: content type, then the document itself (PDF title, XML names the doctype). */
export async function checkDocument(doc: IssuedDocument): Promise<DocumentVerdict> {
  const type = checkContentType(doc.format, doc.contentType);
  if (!type.ok) return type;
  return doc.format === "pdf" ? checkPdf(doc.bytes, doc.doctype) : checkXml(doc.bytes, doc.doctype);
}
