import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { PROJECT_ROOT } from "../version";

/**
 * JSON Schemas straight from the published OpenAPI/Swagger documents shipped under `specs/`.
 * Each document is registered with ajv under its path, so cross-file `$ref`s resolve as they do upstream.
 */
const SPEC_BASE = "https://specs.stackwarden.invalid/";

export type SpecPath = string; // relative to specs/, e.g. "sql/Microsoft.Sql/stable/2014-04-01/sql.core.json"

export interface SchemaCheck {
  valid: boolean;
  /** One line per problem: `<json path> <message>`. */
  errors: string[];
}

let ajv: Ajv | undefined;
const loaded = new Set<string>();
/** Compiled checks by `<spec>#<pointer>`, once per process; callers on hot paths may ask on every response. */
const validators = new Map<string, (data: unknown) => SchemaCheck>();

function getAjv(): Ajv {
  if (!ajv) {
    // strict=false: swagger documents carry x-ms-* extensions, `discriminator` strings and `readOnly`.
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, logger: false });
    addFormats(ajv);
    for (const f of [
      "int32",
      "int64",
      "double",
      "float",
      "duration",
      "password",
      "unixtime",
      "byte",
      "binary",
      "file",
      "base64url",
      "arm-id",
    ]) {
      if (!ajv.formats[f]) ajv.addFormat(f, true);
    }
  }
  return ajv;
}

/** Reads a shipped spec document. YAML specs (OpenAPI 3) are parsed with `yaml`. */
export function readSpec(path: SpecPath): Record<string, unknown> {
  const text = readFileSync(join(PROJECT_ROOT, "specs", path), "utf8");
  if (path.endsWith(".json")) return JSON.parse(text) as Record<string, unknown>;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require("yaml") as typeof import("yaml")).parse(text) as Record<string, unknown>;
}

/**
 * The parsed documents the validators read, once per process: a CLI process compiles a few response checks of
 * one YAML spec (the geocoding one, 52 KB), and `yaml` parsed it again for each (0.3-0.6 s a time). Never
 * handed out: a caller of `readSpec` gets a fresh copy it may change.
 */
const parsed = new Map<SpecPath, Record<string, unknown>>();
function parsedSpec(path: SpecPath): Record<string, unknown> {
  let doc = parsed.get(path);
  if (!doc) {
    doc = readSpec(path);
    parsed.set(path, doc);
  }
  return doc;
}

function ensureLoaded(path: SpecPath): void {
  if (loaded.has(path)) return;
  const doc = parsedSpec(path);
  loaded.add(path);
  getAjv().addSchema({ ...doc, $id: SPEC_BASE + path }, SPEC_BASE + path);
  // Follow relative file references so that their documents are registered too.
  const text = JSON.stringify(doc);
  for (const m of text.matchAll(/"\$ref":"([^"#]+)#/g)) {
    // A `../` that climbs above specs/ is dropped, as a URL drops dot segments above its root (and
    // as ajv resolves the `$ref` against SPEC_BASE): upstream's `specification/common-types/...`,
    // five levels above a Key Vault spec folder there, is `specs/common-types/...` here.
    ensureLoaded(posix.normalize(posix.join(posix.dirname(path), m[1])).replace(/^(\.\.\/)+/, ""));
  }
}

/** A validator for a named definition (`#/definitions/X` or OpenAPI 3 `#/components/schemas/X`). */
export function definitionValidator(path: SpecPath, pointer: string): (data: unknown) => SchemaCheck {
  const key = `${path}#${pointer}`;
  let check = validators.get(key);
  if (!check) {
    ensureLoaded(path);
    const fn: ValidateFunction = getAjv().compile({ $ref: `${SPEC_BASE}${path}#${pointer}` });
    check = (data) => {
      const valid = fn(data) as boolean;
      return { valid, errors: valid ? [] : formatErrors(fn.errors) };
    };
    validators.set(key, check);
  }
  return check;
}

/** A validator for the response schema of an operation (by operationId) at a status. */
export function responseValidator(path: SpecPath, operationId: string, status = "200"): (data: unknown) => SchemaCheck {
  const doc = parsedSpec(path) as { paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>> };
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(methods)) {
      if (op && typeof op === "object" && op.operationId === operationId) {
        const responses = op.responses ?? {};
        if (!(status in responses)) throw new Error(`${path}: ${operationId} has no ${status} response`);
        const pointer = `/paths/${escapePointer(p)}/${m}/responses/${status}/schema`;
        return definitionValidator(path, pointer);
      }
    }
  }
  throw new Error(`${path}: no operation ${operationId}`);
}

function escapePointer(s: string): string {
  return s.replace(/~/g, "~0").replace(/\//g, "~1").replace(/[{}]/g, encodeURIComponent);
}

function formatErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (e) =>
      `${e.instancePath || "/"} ${e.message ?? e.keyword}${e.params && "allowedValues" in e.params ? ` (${(e.params.allowedValues as unknown[]).join(", ")})` : ""}`,
  );
}
