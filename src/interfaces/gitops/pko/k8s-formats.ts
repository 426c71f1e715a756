import { fullFormats } from "ajv-formats/dist/formats";
import type { FormatDefinition } from "ajv";

/**
 * The `format`s Kubernetes' OpenAPI schemas use that JSON Schema does not define: int32 and int64
 * are integers within those bounds (int64 as far as a JavaScript number is exact), date-time is
 * RFC 3339. The compiled CRD validator requires this module by path, so it is its own file.
 */
export const K8S_FORMATS: Record<string, FormatDefinition<number> | FormatDefinition<string> | RegExp | ((s: string) => boolean)> = {
  int32: { type: "number", validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n <= 2 ** 31 - 1 },
  int64: { type: "number", validate: (n: number) => Number.isSafeInteger(n) },
  "date-time": fullFormats["date-time"] as FormatDefinition<string>,
};
