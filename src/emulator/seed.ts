import { readFileSync } from "node:fs";
import Ajv, { type ValidateFunction } from "ajv";
import { precompiledSeedValidator, seedSchemaDigest } from "./seed-validator";
import { parseLocatedYaml, validateLocated, YamlInputError } from "../platform/yaml/located-yaml";
import type { FaultConfig, FaultRule } from "./fault-injector";
import type { LocalService } from "./kit/local-service";
import { throttlingSchema, type ThrottlingInput } from "./kit/arm-throttling";
import { eventGridSeedSchema, type EventGridSeed } from "./changes/event-grid/event-subscription";

/** The seed file: emulator settings, faults, and one section per local service. */
export interface SeedDocument {
  emulator?: {
    pageSize?: number;
    tokenTtlSeconds?: number;
    throttling?: ThrottlingInput;
    activityLogCapacity?: number;
    activityLogPageSize?: number;
    eventGridRetryTimeScale?: number;
  };
  eventGrid?: EventGridSeed;
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
    truncate: { type: "boolean" },
    delayMs: { type: "integer", minimum: 1, maximum: 600_000 },
    scan: { type: "string", enum: ["stall", "fail"] },
    failAtPercent: { type: "integer", minimum: 0, maximum: 100 },
    stallMs: { type: "integer", minimum: 0, maximum: 86_400_000 },
    rate: { type: "number", minimum: 0, maximum: 1 },
    count: { type: "integer", minimum: 0 },
    retryAfterMs: { type: "integer", minimum: 0 },
    record: { type: "string", enum: ["drop", "delay", "duplicate", "reorder"] },
    channel: { type: "string", enum: ["activityLog", "eventGrid"] },
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

/** The `emulator:` section, also the body of `PUT /_emulator/settings`. */
export const settingsSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    pageSize: { type: "integer", minimum: 1, maximum: 1000 },
    tokenTtlSeconds: { type: "integer", minimum: 1 },
    throttling: throttlingSchema,
    activityLogCapacity: { type: "integer", minimum: 1, maximum: 1_000_000 },
    activityLogPageSize: { type: "integer", minimum: 1, maximum: 1000 },
    eventGridRetryTimeScale: { type: "number", exclusiveMinimum: 0, maximum: 1 },
  },
} as const;

/** The JSON Schema of a whole seed document, built from the services' own section schemas. */
export function seedSchema(services: readonly LocalService[]): object {
  const properties: Record<string, object> = {
    emulator: settingsSchema,
    faults: faultConfigSchema,
    eventGrid: eventGridSeedSchema,
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
    throw new Error(`${path}: cannot read the seed file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { cause: e });
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
  const value = resolveRelativeTimes(y.value, Date.now());
  validateLocated(y, seedValidator(services), value);
  return value as SeedDocument;
}

/** How the seed schema is compiled, here and by the build (seed-validator.ts). */
export const SEED_AJV_OPTIONS = { allErrors: true, strict: false } as const;

/**
 * The seed schema's validator: the one the build compiled for the same schema when there is one
 * (seed-validator.ts), else compiled now. Compiling it costs ~270 ms and ~20 MB that the process
 * keeps, on every start of the emulator.
 */
function seedValidator(services: readonly LocalService[]): ValidateFunction {
  const schema = seedSchema(services);
  return precompiledSeedValidator(seedSchemaDigest(schema)) ?? new Ajv(SEED_AJV_OPTIONS).compile(schema);
}

const RELATIVE_TIME = /^now(?:([+-])(\d+)([smhd]))?$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };
/** Keys that hold times (observationPeriodEnd, startTime, creationTime ...); names are never rewritten. */
const TIME_KEY = /(?:[Tt]ime|[Ss]tart|[Ee]nd|[Dd]ate|On)$/;

/**
 * Replaces `now`, `now-3d`, `now+2h` (units s, m, h, d) in time-valued keys with an RFC 3339 time
 * relative to when the seed is loaded, so an example estate's dates (advisor observation periods)
 * stay recent.
 */
export function resolveRelativeTimes(value: unknown, now: number, key = ""): unknown {
  if (typeof value === "string") {
    const m = TIME_KEY.test(key) ? RELATIVE_TIME.exec(value) : null;
    if (!m) return value;
    const offset = m[1] ? (m[1] === "-" ? -1 : 1) * Number(m[2]) * UNIT_MS[m[3]] : 0;
    return new Date(now + offset).toISOString();
  }
  if (Array.isArray(value)) return value.map((v) => resolveRelativeTimes(v, now, key));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRelativeTimes(v, now, k)]));
  }
  return value;
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
