import { FormData, type Dispatcher } from "undici";
import { ApiError, HttpTransport, type Logger, type RetryPolicyOptions, loggerFromEnv } from "../../platform/http";
import { AZURE_REQUEST_IDS } from "../../platform/arm/azure-request-ids";
import { definitionValidator, type SchemaCheck } from "../../platform/schemas/swagger-schemas";
import { noteSchemaDrift } from "../../platform/schemas/schema-drift";
import { chunkRules, matchesPerSource } from "./rule-chunks";
import { appendDiskFile, DiskFile } from "./disk-file";
import {
  BINARY_ANALYSIS_SPEC,
  ERROR_CODE,
  FIELD,
  MAX_RULES_PER_REQUEST,
  type ApplyYaraRuleResult,
  type ApplyYaraRulesResponse,
  type EmulationOutputResponse,
  type GeneratePartialYaraRulesResponse,
  type PartialYaraRule,
  type RuleSource,
  type RuleSourceMatches,
  type YaraScanResult,
} from "./types";
import { mapBounded } from "../../platform/bounded-map";

export interface BinaryAnalysisClientOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:4000/binary-analysis/v1` on the emulator. */
  endpoint: string;
  /** What chose the endpoint (`STACKWARDEN_ARM_ENDPOINT`, `STACKWARDEN_EMULATOR`, `--emulator`, `the default of …`): named when nothing answers there. */
  endpointSetting?: string;
  retry?: Partial<RetryPolicyOptions>;
  /** Per-attempt timeout in ms, for the answer's headers and for its body. Uploads and scans of large files take long. Default 600 000 (10 minutes). */
  timeoutMs?: number;
  /** Requests in flight at once when the rules need several (each sends the whole file). Default 2. */
  concurrency?: number;
  logger?: Logger;
  dispatcher?: Dispatcher;
}

export interface ApplyYaraRulesOptions {
  /** Send `is_unpacking_required=true`: the service scans the unpacked file. Default false. */
  unpack?: boolean;
  signal?: AbortSignal;
  /**
   * Called once, when the file has been read to its end for sending: from then on the service is
   * at work and the caller's disk and CPU are free (the scan cache hashes the file then).
   */
  onFileRead?: () => void;
}

export interface PartialRuleOptions {
  unpack?: boolean;
  /** Shortest string worth a rule, in characters. The service's default applies when unset. */
  minimumStringLength?: number;
  /** Strings to leave out (the spec allows up to 1000). */
  stringsToIgnore?: string[];
  signal?: AbortSignal;
}

const POINTER = (path: string) => `/paths/${path.replace(/\//g, "~1")}/post/responses/200/content/*~1*/schema`;

/**
 * A client of the binary analysis service (restful4up). Files stream from disk (DiskFile parts of
 * an undici FormData, read 4 MiB at a time), so a file of any size is never read into memory whole. Rule
 * sources are sent at most ten a request, as the spec allows; the results come back merged in the
 * order the sources were given. Every failure is the transport's ApiError.
 */
export class BinaryAnalysisClient {
  private readonly http: HttpTransport;
  private readonly logger: Logger;
  private readonly concurrency: number;
  readonly endpoint: string;

  constructor(opts: BinaryAnalysisClientOptions) {
    this.endpoint = opts.endpoint;
    this.logger = opts.logger ?? loggerFromEnv();
    this.concurrency = opts.concurrency ?? 2;
    this.http = new HttpTransport({
      baseUrl: opts.endpoint,
      endpointSetting: opts.endpointSetting,
      // Not an Azure API, but its calls have always carried Azure's request ids (the emulator answers
      // every service with them, and errors quote them): kept, so that errors read as before.
      requestIds: AZURE_REQUEST_IDS,
      retry: opts.retry,
      timeoutMs: opts.timeoutMs ?? 600_000,
      logger: this.logger,
      dispatcher: opts.dispatcher,
    });
  }

  /**
   * Applies YARA rule sources to a file (`POST /apply-yara-rules`), ten sources a request. A
   * source that does not compile fails the call with an ApiError naming that source.
   */
  async applyYaraRules(file: string, rules: readonly RuleSource[], opts: ApplyYaraRulesOptions = {}): Promise<YaraScanResult> {
    if (rules.length === 0) throw new RangeError("applyYaraRules needs at least one rule source");
    let read = false;
    const onRead = () => {
      if (read) return;
      read = true;
      opts.onFileRead?.();
      // The answer's schema check reads and compiles the spec (~120 ms): done now, while the service
      // scans and this process waits, rather than after the answer has come.
      setImmediate(() => this.validatorOf("/apply-yara-rules"));
    };
    const upload = await DiskFile.open(file, { onRead });
    const chunks = chunkRules(rules, MAX_RULES_PER_REQUEST);
    const answers = await mapBounded(chunks, this.concurrency, async (chunk, k) => {
      const form = new FormData();
      appendDiskFile(form, FIELD.file, upload);
      for (const r of chunk.sources) form.append(FIELD.rules, Buffer.from(r.source, "utf8").toString("base64"));
      form.append(FIELD.isUnpackingRequired, opts.unpack ? "true" : "false");
      let body: ApplyYaraRulesResponse;
      try {
        body = await this.http.json<ApplyYaraRulesResponse>({
          operation: "ApplyYaraRules",
          method: "POST",
          path: "/apply-yara-rules",
          form,
          signal: opts.signal,
        });
      } catch (e) {
        throw nameTheRule(e, chunk.start, chunk.sources, k, chunks.length);
      }
      this.learn("ApplyYaraRules", "/apply-yara-rules", body);
      const result = body?.result ?? body?.output;
      if (!result || typeof result !== "object") {
        throw new ApiError({
          operation: "ApplyYaraRules",
          status: 200,
          code: "InvalidResponse",
          message: 'the answer has no "result" object',
          method: "POST",
          url: this.http.baseUrl.origin,
        });
      }
      if (result.is_success === false) {
        throw new ApiError({
          operation: "ApplyYaraRules",
          status: 200,
          code: "YaraFailed",
          message: `${describeChunk(chunk.start, chunk.sources)}: ${result.error_message ?? "the service says the scan failed, without a reason"}`,
          method: "POST",
          url: this.http.baseUrl.origin,
        });
      }
      return result;
    });
    const sources: RuleSourceMatches[] = [];
    answers.forEach((result: ApplyYaraRuleResult, k) => {
      const chunk = chunks[k];
      matchesPerSource(result, chunk.sources).forEach((matches, i) =>
        sources.push({ source: chunk.sources[i].name, index: chunk.start + i, matches }),
      );
    });
    return {
      sources,
      requests: chunks.length,
      yaraCommands: answers.map((a) => String(a.yara_command ?? "")),
      unpacking: answers[0]?.unpacking,
    };
  }

  /** Unpacks a file (`POST /unpack`) and returns the unpacked bytes. A file that is not packed gets a 400 (ApiError code `NotPacked` on stackwarden's service). */
  async unpack(file: string, opts: { signal?: AbortSignal } = {}): Promise<Buffer> {
    const form = new FormData();
    appendDiskFile(form, FIELD.file, await DiskFile.open(file));
    const res = await this.http.bytes({
      operation: "Unpack",
      method: "POST",
      path: "/unpack",
      headers: { accept: "application/octet-stream, */*" },
      form,
      signal: opts.signal,
    });
    return res.body;
  }

  /** The service's report on a file (`POST /emulation-output`), one line an item. stackwarden's own service reports statically (no emulation). */
  async emulationOutput(file: string, opts: { signal?: AbortSignal } = {}): Promise<string[]> {
    const form = new FormData();
    appendDiskFile(form, FIELD.file, await DiskFile.open(file));
    const body = await this.http.json<EmulationOutputResponse>({
      operation: "EmulationOutput",
      method: "POST",
      path: "/emulation-output",
      form,
      signal: opts.signal,
    });
    this.learn("EmulationOutput", "/emulation-output", body);
    return Array.isArray(body?.output) ? body.output.map(String) : [];
  }

  /** Partial YARA rules for a file (`POST /generate-partial-yara-rules`): meta and strings, no condition. */
  async generatePartialYaraRules(file: string, opts: PartialRuleOptions = {}): Promise<PartialYaraRule> {
    const form = new FormData();
    appendDiskFile(form, FIELD.file, await DiskFile.open(file));
    if (opts.unpack !== undefined) form.append(FIELD.isUnpackingRequired, opts.unpack ? "true" : "false");
    if (opts.minimumStringLength !== undefined) form.append(FIELD.minimumStringLength, String(opts.minimumStringLength));
    for (const s of opts.stringsToIgnore ?? []) form.append(FIELD.stringsToIgnore, s);
    const body = await this.http.json<GeneratePartialYaraRulesResponse>({
      operation: "GeneratePartialYaraRules",
      method: "POST",
      path: "/generate-partial-yara-rules",
      form,
      signal: opts.signal,
    });
    this.learn("GeneratePartialYaraRules", "/generate-partial-yara-rules", body);
    const rule = body?.rule;
    if (!rule || typeof rule !== "object") {
      throw new ApiError({
        operation: "GeneratePartialYaraRules",
        status: 200,
        code: "InvalidResponse",
        message: 'the answer has no "rule" object',
        method: "POST",
        url: this.http.baseUrl.origin,
      });
    }
    // Tolerant: null reads as absent, unknown meta keys are kept.
    const meta: Record<string, string> = {};
    for (const [k, v] of Object.entries((rule.meta ?? {}) as Record<string, unknown>))
      if (v !== null && v !== undefined) meta[k] = String(v);
    return {
      name: String(rule.name ?? "partial_rule"),
      meta: { ...meta, date: meta.date ?? "", md5sum: meta.md5sum ?? "", sha256sum: meta.sha256sum ?? "", sha512sum: meta.sha512sum ?? "" },
      strings: Array.isArray(rule.strings)
        ? rule.strings.filter((p) => Array.isArray(p) && p.length >= 2).map((p) => [String(p[0]), String(p[1])])
        : [],
    };
  }

  /** Asks the service to remove uploaded files (`HEAD /clean`). */
  async clean(opts: { signal?: AbortSignal } = {}): Promise<void> {
    await this.http.request({ operation: "Clean", method: "HEAD", path: "/clean", signal: opts.signal });
  }

  /** Validates to learn, never to refuse: a drifting answer is logged once and used as it is. */
  private learn(operation: string, path: string, body: unknown): void {
    const validate = this.validatorOf(path);
    if (validate) noteSchemaDrift(operation, validate(body), this.logger);
  }

  /** The spec's check of an operation's answer (compiled once per process); undefined when the spec cannot give one. */
  private validatorOf(path: string): ((body: unknown) => SchemaCheck) | undefined {
    try {
      return definitionValidator(BINARY_ANALYSIS_SPEC, POINTER(path));
    } catch {
      return undefined;
    }
  }
}

function describeChunk(start: number, sources: readonly RuleSource[]): string {
  return sources.length === 1
    ? `rule source ${sources[0].name} (rules[${start}])`
    : `rule sources ${start}..${start + sources.length - 1} (${sources.map((s) => s.name).join(", ")})`;
}

/**
 * Rewrites a failed request's ApiError so that it names the rule source at fault: the local
 * service says which entry of `rules` did not compile (code RuleCompileError, `rules[N]`); any
 * other failure of a request that carried rules names the request's sources.
 */
function nameTheRule(e: unknown, start: number, sources: readonly RuleSource[], k: number, total: number): unknown {
  if (!(e instanceof ApiError) || e.status === 0) return e;
  let message: string;
  const m = /\brules\[(\d+)\]/.exec(e.detail);
  const i = m ? Number(m[1]) : -1;
  if (e.code === ERROR_CODE.ruleCompile && i >= 0 && i < sources.length) {
    // "rules[0] does not compile (in rule x, line 1, column 39): ..." -> "rule source a.yar (rules[10]) does not compile (in rule x, ...): ..."
    const rest = e.detail.replace(/^rules\[\d+\]\s*/, "");
    message = `rule source ${sources[i].name} (rules[${start + i}]) ${/^does not compile/.test(rest) ? rest : `does not compile: ${rest}`}`;
  } else if (e.status >= 400 && e.status < 500 && e.status !== 413) {
    message = `${total > 1 ? `request ${k + 1} of ${total}, ` : ""}${describeChunk(start, sources)}: ${e.detail}`;
  } else {
    return e;
  }
  return e.restate({ message });
}
