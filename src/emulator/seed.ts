import { readFileSync } from "node:fs";
import Ajv from "ajv";
import { parseLocatedYaml, validateLocated, YamlInputError } from "../yaml/located-yaml";
import type { FaultConfig, FaultRule } from "./fault-injector";
import type { LocalService } from "./local-service";

/** The seed file: emulator settings, faults, and one section per local service. */
export interface SeedDocument {
  emulator?: { pageSize?: number; tokenTtlSeconds?: number };
  faults?: Partial<FaultConfig>;
  [service: string]: unknown;
}

export const faultRuleSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    match: { type: "string" },
    methods: { type: "array", items: { type: "string", enum: ["GET", "PUT", "POST", "DELETE", "PATCH"] } },
    status: { type: "integer", minimum: 400, maximum: 599 },
    drop: { type: "boolean" },
    rate: { type: "number", minimum: 0, maximum: 1 },
    count: { type: "integer", minimum: 0 },
    retryAfterMs: { type: "integer", minimum: 0 },
  },
} as const;

export const faultConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    seed: { type: "integer" },
    latencyMs: { type: "integer", minimum: 0 },
    maxConsecutive: { type: "integer", minimum: 0 },
    rules: { type: "array", items: faultRuleSchema },
  },
} as const;

/** The JSON Schema of a whole seed document, built from the services' own section schemas. */
export function seedSchema(services: readonly LocalService[]): object {
  const properties: Record<string, object> = {
    emulator: {
      type: "object",
      additionalProperties: false,
      properties: {
        pageSize: { type: "integer", minimum: 1, maximum: 1000 },
        tokenTtlSeconds: { type: "integer", minimum: 1 },
      },
    },
    faults: faultConfigSchema,
  };
  for (const s of services) properties[s.name] = s.seedSchema;
  return { type: "object", additionalProperties: false, properties };
}

/** Reads and validates a seed file; errors name the file, line, column and key. */
export function loadSeedFile(path: string, services: readonly LocalService[]): SeedDocument {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Error(`${path}: cannot read the seed file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseSeed(path, text, services);
}

/** Parses and validates seed text. */
export function parseSeed(file: string, text: string, services: readonly LocalService[]): SeedDocument {
  const y = parseLocatedYaml(file, text);
  if (y.value === null || y.value === undefined) return {};
  if (typeof y.value !== "object" || Array.isArray(y.value)) {
    throw new YamlInputError(file, 1, 1, "", "a seed file must be a mapping of sections");
  }
  const ajv = new Ajv({ allErrors: true, strict: false });
  validateLocated(y, ajv.compile(seedSchema(services)));
  return y.value as SeedDocument;
}

/** Fills in a fault configuration's defaults. */
export function completeFaults(f: Partial<FaultConfig> | undefined, base: FaultConfig): FaultConfig {
  return {
    seed: f?.seed ?? base.seed,
    latencyMs: f?.latencyMs ?? base.latencyMs,
    maxConsecutive: f?.maxConsecutive ?? base.maxConsecutive,
    rules: (f?.rules as FaultRule[] | undefined) ?? base.rules,
  };
}
