import { ERROR_CODE, FIELD } from "../../../services/binary-analysis/types";
import type { Upload } from "./multipart-upload";
import { DEFAULT_MINIMUM_STRING_LENGTH } from "./partial-rule";
import { ServiceError } from "./upload-error";

/** Every value of a form field, in the order sent; some clients name repeated fields `rules[]`. */
export function fieldList(upload: Upload, name: string): string[] {
  return [...(upload.fields.get(name) ?? []), ...(upload.fields.get(`${name}[]`) ?? [])];
}

/** A `"true"`/`"false"` field (the last value wins); absent is false, anything else a 400. */
export function booleanField(upload: Upload, name: string): boolean {
  const v = fieldList(upload, name);
  if (v.length === 0) return false;
  const value = v[v.length - 1].trim().toLowerCase();
  if (value !== "true" && value !== "false")
    throw new ServiceError(400, ERROR_CODE.badRequest, `"${name}" must be "true" or "false"; got "${v[v.length - 1]}"`);
  return value === "true";
}

/** The `minimum_string_length` field: an integer from 1 to 200, the default when absent or blank. */
export function minimumStringLength(upload: Upload): number {
  const v = fieldList(upload, FIELD.minimumStringLength);
  if (v.length === 0 || v[v.length - 1].trim() === "") return DEFAULT_MINIMUM_STRING_LENGTH;
  const raw = v[v.length - 1].trim();
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 200)
    throw new ServiceError(400, ERROR_CODE.badRequest, `"${FIELD.minimumStringLength}" must be an integer from 1 to 200; got "${raw}"`);
  return n;
}

/** A rule source sent as base64 (whitespace ignored), decoded; not base64 or empty is a 400 naming its index. */
export function decodedRule(value: string, index: number): string {
  const compact = value.replace(/\s+/g, "");
  if (compact.length === 0 || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) {
    throw new ServiceError(400, ERROR_CODE.badRequest, `rules[${index}] is not base64 (each rule is sent as a base64 string)`, {
      rule_index: index,
    });
  }
  const text = Buffer.from(compact, "base64").toString("utf8");
  if (text.trim() === "") throw new ServiceError(400, ERROR_CODE.badRequest, `rules[${index}] is empty`, { rule_index: index });
  return text;
}
