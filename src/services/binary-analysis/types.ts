/**
 * Types of the binary analysis service (restful4up, `specs/restful4up/openapi.yaml`): the wire
 * shapes as the spec writes them, plus the parsed shapes the client hands out.
 */

/** The spec document, relative to `specs/`. */
export const BINARY_ANALYSIS_SPEC = "restful4up/openapi.yaml";

/** `rules` has `maxItems: 10` in the spec: at most ten rule sources a request. */
export const MAX_RULES_PER_REQUEST = 10;

/** The multipart field names of the spec. */
export const FIELD = {
  file: "file",
  rules: "rules",
  isUnpackingRequired: "is_unpacking_required",
  minimumStringLength: "minimum_string_length",
  stringsToIgnore: "strings_to_ignore",
} as const;

/** One matched rule as the spec's `apply_yara_rule.matched_yara_rules` items carry it. */
export interface WireRuleMatch {
  rule: string;
  /** `0x<offset>:<length>:<identifier>: <data>` per matched string, as `yara --print-strings --print-string-length` prints. */
  string_information: string[];
  /** Additive (stackwarden's local service): the rule's tags. */
  tags?: string[];
  /** Additive (stackwarden's local service): the rule's meta section. */
  meta?: Record<string, string | number | boolean>;
}

/**
 * What happened to `is_unpacking_required` (additive field of the local service; a service
 * without it says nothing, and the client reports `undefined`).
 */
export interface UnpackingReport {
  /** `not-requested`, `not-packed` (scanned as sent) or `unpacked` (the unpacked file was scanned). */
  status: "not-requested" | "not-packed" | "unpacked";
  packer?: string;
  /** Size of the unpacked file, when unpacked. */
  unpackedSize?: number;
}

/** The spec's `apply_yara_rule` schema. */
export interface ApplyYaraRuleResult {
  yara_command: string;
  is_success: boolean;
  error_message?: string;
  /**
   * The spec types this as an array of arrays: one array per entry of `rules`, in request order
   * (restful4up's own README shows a flat array of matches; the client reads both).
   */
  matched_yara_rules?: (WireRuleMatch[] | WireRuleMatch)[];
  unpacking?: UnpackingReport;
}

/** 200 answer of `/apply-yara-rules`: `result` in the spec; restful4up itself answers `output`, which the client also reads. */
export interface ApplyYaraRulesResponse {
  result?: ApplyYaraRuleResult;
  output?: ApplyYaraRuleResult;
}

/** 200 answer of `/emulation-output`. */
export interface EmulationOutputResponse {
  output: string[];
}

/** The spec's `yara` schema: a rule without its condition. */
export interface PartialYaraRule {
  name: string;
  meta: { date: string; md5sum: string; sha256sum: string; sha512sum: string } & Record<string, string>;
  /** `[identifier, text]` pairs. Identifiers starting `wide_` are UTF-16LE strings (render them with the `wide` modifier). */
  strings: [string, string][];
}

/** 200 answer of `/generate-partial-yara-rules`. */
export interface GeneratePartialYaraRulesResponse {
  rule: PartialYaraRule;
}

/** The spec's `error` schema; `code` and `rule_index` are additive fields of the local service. */
export interface ErrorBody {
  status: number;
  message: string;
  code?: string;
  /** For RuleCompileError: the index of the failing entry of `rules` in that request. */
  rule_index?: number;
}

/** The `code` values the local service puts in its error bodies (the transport's ApiError carries them as `code`). */
export const ERROR_CODE = {
  tooManyRules: "TooManyRules",
  ruleCompile: "RuleCompileError",
  notPacked: "NotPacked",
  unpackFailed: "UnpackFailed",
  payloadTooLarge: "PayloadTooLarge",
  badRequest: "BadRequest",
} as const;

/** A rule source to send: its text and a name for messages (usually the .yar file's path). */
export interface RuleSource {
  name: string;
  source: string;
}

/** One matched string. */
export interface StringMatch {
  identifier: string;
  /** Byte offset in the scanned file (the unpacked file when unpacking happened). */
  offset: number;
  /** Length in bytes, when the service reported it. */
  length?: number;
  /** The matched bytes as the service printed them (non-printable bytes as `\xNN`). */
  data: string;
}

/** One matched rule, parsed. */
export interface YaraRuleMatch {
  rule: string;
  tags: string[];
  meta: Record<string, string | number | boolean>;
  strings: StringMatch[];
}

/** The matches of one rule source. */
export interface RuleSourceMatches {
  /** The rule source's name (as given). */
  source: string;
  /** Its position in the list given to the client. */
  index: number;
  matches: YaraRuleMatch[];
}

/** What `applyYaraRules` returns: every rule source's matches, in the order the sources were given. */
export interface YaraScanResult {
  sources: RuleSourceMatches[];
  /** Requests made (rule sources are sent at most ten a request). */
  requests: number;
  /** `yara_command` of each request, in order. */
  yaraCommands: string[];
  /** What the service did about unpacking (the first request's report), when it said. */
  unpacking?: UnpackingReport;
}
