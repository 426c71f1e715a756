import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import Ajv, { Name, type ErrorObject, type ValidateFunction } from "ajv";
import standaloneCode from "ajv/dist/standalone";
import { parse } from "yaml";
import { PROJECT_ROOT } from "../../../platform/version";
import { K8S_FORMATS } from "./k8s-formats";

/** The operator's published CRD of `Stack` (see specs/SOURCES.md). */
export const STACK_CRD_PATH = join(PROJECT_ROOT, "specs", "pko", "pulumi.com_stacks.yaml");

/** The API version and kind stackwarden writes. */
export const STACK_API_VERSION = "pulumi.com/v1";
export const STACK_KIND = "Stack";

/** A CEL rule (`x-kubernetes-validations`) of the CRD, with where it sits (`""` is the object itself). */
export interface CelRule {
  at: string;
  rule: string;
  message: string;
}

/**
 * The CEL rules stackwarden evaluates, by their exact text. Kubernetes evaluates them on apply; a
 * rule the CRD has that is not here makes every validation fail, so a new CRD cannot slip a rule past.
 */
const CEL_RULES: Record<string, (self: Record<string, unknown>) => boolean> = {
  "size(self.metadata.name) <= 42": (self) => String((self.metadata as { name?: unknown } | undefined)?.name ?? "").length <= 42,
};

/** Changes when how the validator is built changes: part of the cache key. */
const BUILD_VERSION = "1";

interface CompiledCrd {
  validate: ValidateFunction;
  celRules: CelRule[];
}

let memo: { key: string; compiled: CompiledCrd } | undefined;

/** Where compiled validators are cached: `${STACKWARDEN_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/stackwarden}/pko-crd`. */
export function crdCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const root = env.STACKWARDEN_CACHE_DIR || join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "stackwarden");
  return resolve(root, "pko-crd");
}

/**
 * Kubernetes rejects fields a structural schema does not declare (kubectl's default field
 * validation is Strict) where JSON Schema would accept them: every object schema that declares
 * properties, and neither `additionalProperties` nor `x-kubernetes-preserve-unknown-fields`,
 * gets `additionalProperties: false`. Collects the CEL rules on the way.
 */
function strictSchema(node: unknown, at: string, rules: CelRule[]): unknown {
  if (Array.isArray(node)) return node.map((n) => strictSchema(n, at, rules));
  if (!node || typeof node !== "object") return node;
  const src = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === "properties" && v && typeof v === "object") {
      out.properties = Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map(([p, s]) => [p, strictSchema(s, at ? `${at}.${p}` : p, rules)]),
      );
    } else if (k === "items" || k === "additionalProperties") {
      out[k] = strictSchema(v, `${at}[]`, rules);
    } else if (k === "anyOf" || k === "allOf" || k === "oneOf") {
      out[k] = strictSchema(v, at, rules);
    } else if (k === "x-kubernetes-validations" && Array.isArray(v)) {
      for (const r of v as { rule: string; message?: string }[]) rules.push({ at, rule: r.rule, message: r.message ?? r.rule });
    } else {
      out[k] = v;
    }
  }
  if (
    src.type === "object" &&
    src.properties &&
    src.additionalProperties === undefined &&
    src["x-kubernetes-preserve-unknown-fields"] !== true
  ) {
    out.additionalProperties = false;
  }
  return out;
}

/** The name the compiled code reads the formats from (passed in when it is loaded). */
const FORMATS_PARAM = "k8sFormats";

function newAjv(): Ajv {
  // strict: false: the CRD carries x-kubernetes-* keywords that are not JSON Schema.
  const ajv = new Ajv({ strict: false, allErrors: true, code: { source: true, formats: new Name(FORMATS_PARAM) } });
  for (const [name, def] of Object.entries(K8S_FORMATS)) ajv.addFormat(name, def as Parameters<Ajv["addFormat"]>[1]);
  return ajv;
}

/** Evaluates cached validator code with stackwarden's own `require` (it needs ajv's runtime). */
function loadCompiled(code: string, file: string): CompiledCrd {
  const mod: { exports: Record<string, unknown> } = { exports: {} };
  const fn = new Function("module", "exports", "require", FORMATS_PARAM, code) as (
    m: unknown,
    e: unknown,
    r: NodeRequire,
    f: unknown,
  ) => void;
  fn(mod, mod.exports, createRequire(__filename), K8S_FORMATS);
  const validate = mod.exports.default as ValidateFunction | undefined;
  const celRules = mod.exports.celRules as CelRule[] | undefined;
  if (typeof validate !== "function" || !Array.isArray(celRules)) throw new Error(`${file} is not a compiled CRD validator`);
  return { validate, celRules };
}

/**
 * The compiled validator of the CRD's `v1` schema. Compiling the 1.5 MB CRD takes seconds, so the
 * compiled code is cached on disk (keyed by the CRD's content and the build) and in the process;
 * a cache that cannot be read or written is rebuilt or skipped, never fatal.
 */
export function stackCrdValidator(opts: { crdPath?: string; cacheDir?: string; env?: NodeJS.ProcessEnv } = {}): CompiledCrd {
  const crdPath = opts.crdPath ?? STACK_CRD_PATH;
  let text: string;
  try {
    text = readFileSync(crdPath, "utf8");
  } catch (e) {
    throw new Error(`cannot read the operator's Stack CRD at ${crdPath} (${(e as NodeJS.ErrnoException).code ?? String(e)})`, { cause: e });
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a package.json outside rootDir, read once
  const ajvVersion = (require("ajv/package.json") as { version: string }).version;
  const key = createHash("sha256").update(`${BUILD_VERSION}\0${ajvVersion}\0${text}`).digest("hex").slice(0, 24);
  if (memo?.key === key) return memo.compiled;
  const cacheFile = join(opts.cacheDir ?? crdCacheDir(opts.env), `stacks-v1-${key}.js`);
  try {
    const compiled = loadCompiled(readFileSync(cacheFile, "utf8"), cacheFile);
    memo = { key, compiled };
    return compiled;
  } catch {
    // Not cached yet (or unreadable): compile.
  }
  const crd = parse(text) as {
    spec?: { group?: string; names?: { kind?: string }; versions?: { name: string; schema?: { openAPIV3Schema?: unknown } }[] };
  };
  const v1 = crd.spec?.versions?.find((v) => v.name === "v1")?.schema?.openAPIV3Schema;
  if (crd.spec?.group !== "pulumi.com" || crd.spec.names?.kind !== STACK_KIND || !v1)
    throw new Error(`${crdPath} is not the pulumi.com Stack CRD with a v1 schema`);
  const celRules: CelRule[] = [];
  const schema = strictSchema(v1, "", celRules) as Record<string, unknown>;
  const ajv = newAjv();
  const validate = ajv.compile(schema);
  const compiled = { validate, celRules };
  memo = { key, compiled };
  try {
    const code = `${standaloneCode(ajv, validate)}\nmodule.exports.celRules = ${JSON.stringify(celRules)};\n`;
    mkdirSync(join(cacheFile, ".."), { recursive: true });
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, cacheFile); // atomic: a reader sees the whole file or none
  } catch {
    // A read-only cache only costs the next run the compile time.
  }
  return compiled;
}

/** A DNS-1123 label (namespaces, label values' shape). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function ajvProblem(e: ErrorObject): string {
  const path = e.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), "");
  if (e.keyword === "additionalProperties") {
    const field = String((e.params as { additionalProperty?: string }).additionalProperty);
    return `${path ? `${path}.` : ""}${field}: is not a field of the CRD (Kubernetes would reject it)`;
  }
  return `${path || "(the object)"}: ${e.message ?? e.keyword}`;
}

/**
 * Every problem a `Stack` custom resource has against the operator's CRD: its OpenAPI schema (with
 * unknown fields refused), its CEL rules, and what the API server checks of every object
 * (apiVersion, kind, metadata.name and namespace). Empty when Kubernetes would accept it.
 */
export function stackCrProblems(cr: unknown, compiled: CompiledCrd = stackCrdValidator()): string[] {
  if (!cr || typeof cr !== "object" || Array.isArray(cr)) return ["(the document): must be a mapping (a Kubernetes object)"];
  const obj = cr as Record<string, unknown>;
  const problems: string[] = [];
  if (obj.apiVersion !== STACK_API_VERSION)
    problems.push(`apiVersion: must be ${STACK_API_VERSION}, got ${JSON.stringify(obj.apiVersion)}`);
  if (obj.kind !== STACK_KIND) problems.push(`kind: must be ${STACK_KIND}, got ${JSON.stringify(obj.kind)}`);
  const meta = obj.metadata as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== "object") problems.push("metadata: is required");
  else {
    if (typeof meta.name !== "string" || !meta.name) problems.push("metadata.name: is required");
    else if (meta.name.length > 253 || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(meta.name))
      problems.push(`metadata.name: "${meta.name}" is not a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')`);
    if (
      meta.namespace !== undefined &&
      (typeof meta.namespace !== "string" || meta.namespace.length > 63 || !DNS_LABEL.test(meta.namespace))
    )
      problems.push(
        `metadata.namespace: ${JSON.stringify(meta.namespace)} is not a DNS-1123 label (at most 63 lowercase letters, digits and '-')`,
      );
    for (const field of ["labels", "annotations"]) {
      const m = meta[field];
      if (m === undefined) continue;
      if (!m || typeof m !== "object" || Array.isArray(m) || Object.values(m).some((v) => typeof v !== "string"))
        problems.push(`metadata.${field}: must map names to strings`);
    }
  }
  if (!compiled.validate(obj)) problems.push(...(compiled.validate.errors ?? []).map(ajvProblem));
  for (const r of compiled.celRules) {
    const check = CEL_RULES[r.rule];
    if (!check) {
      problems.push(
        `${r.at || "(the object)"}: the CRD's CEL rule "${r.rule}" is not evaluated by stackwarden; add it to src/interfaces/gitops/pko/stack-crd.ts`,
      );
      continue;
    }
    // Rules sit at the root in this CRD; a rule deeper down would need its sub-object.
    if (r.at !== "") {
      problems.push(`${r.at}: the CEL rule "${r.rule}" sits below the root, which stackwarden does not evaluate yet`);
      continue;
    }
    if (!check(obj)) problems.push(`(the object): ${r.message} (CEL: ${r.rule})`);
  }
  return [...new Set(problems)];
}
