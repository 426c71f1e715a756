import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { registryVersion } from "../compliance/registry";
import { resolveRuleSettings, type ConfiguredRuleSettings, type RuleSettings } from "../compliance/rule-settings";
import type { Exemption } from "../compliance/declared-exemption";
import type { SourceLocation } from "../../platform/yaml/source-location";
import { databaseLabel, elasticPoolLabel } from "../../platform/arm/resource-id";
import {
  describeAjvError,
  formatKeyPath,
  locate,
  parseLocatedYaml,
  pickError,
  pointerToPath,
  toLocatedError,
  YamlInputError,
  type LocatedYaml,
} from "../../platform/yaml/located-yaml";
import { stackKeysSchema } from "./stack-schema";
import { buildScope, type RawScope, type ScopeCoverage, type StackScope } from "./stack-scope";
import {
  buildProbes,
  isProbeParameterPath,
  PLAIN_PARAMETER_PROBLEM,
  plainProbeParameter,
  type ProbeSpec,
  type RawProbe,
} from "../probes/probe-config";
import { isSecureValue, parseEnvReference } from "../probes/parameter-source";
import { isAssignedCountryCode } from "../../services/geocoding/country-codes";

export type { Exemption, SourceLocation };

export interface DesiredDatabase {
  /**
   * Absent: the stack's `subscriptionId`. A database discovered in `stackwarden:scope` carries its
   * own, and so may a listed entry (one adopted from another subscription): `databaseSubscription`.
   */
  subscriptionId?: string;
  resourceGroup: string;
  server: string;
  database: string;
  transparentDataEncryption: "Enabled" | "Disabled";
  serviceObjective?: string;
  source?: SourceLocation;
  /** Set on a database found in `stackwarden:scope` and not listed: its desired state is the scope's. */
  discovered?: true;
}

/** The subscription a stack's database is in: its own when discovered, else the stack's. */
export function databaseSubscription(stack: Pick<StackConfig, "subscriptionId">, d: Pick<DesiredDatabase, "subscriptionId">): string {
  return d.subscriptionId ?? stack.subscriptionId;
}

export interface ElasticPoolTarget {
  resourceGroup: string;
  server: string;
  elasticPool: string;
  source?: SourceLocation;
}

/** A Batch AI workspace the Pulumi program registers, with the children it names. */
export interface BatchWorkspaceTarget {
  resourceGroup: string;
  workspace: string;
  clusters?: string[];
  experiments?: string[];
  fileServers?: string[];
  source?: SourceLocation;
}

/** A place the stack names by address (a backup site, a replica), placed in a country by geocoding. */
export interface ResidencySite {
  name: string;
  address: string;
  source?: SourceLocation;
}

/** `stackwarden:residency`: the countries data may live in, and the sites to place. */
export interface ResidencyConfig {
  /** ISO 3166-1 alpha-2 codes, upper case, each officially assigned. */
  allowedCountries: string[];
  sites: ResidencySite[];
  /** Where `stackwarden:residency` is written. */
  source?: SourceLocation;
}

/** The files a stack ships and the signature rules they are scanned with (`stackwarden:artifacts`). */
export interface ArtifactsTarget {
  /** Globs relative to the project directory. */
  paths: string[];
  /** Rule files or folders, relative to the project directory. */
  rules: string[];
  source?: SourceLocation;
  /** Where each glob was written, by index. */
  pathSources?: (SourceLocation | undefined)[];
  /** Where each rule reference was written, by index. */
  ruleSources?: (SourceLocation | undefined)[];
}

/** How a stack is applied: by stackwarden itself, or by Pulumi (`pulumi up` with the policy pack). */
export type StackEngine = "native" | "pulumi";

/** A validated stack: what the CLI and the Pulumi program both act on. */
export interface StackConfig {
  /** The stack file, or a description of where the values came from. */
  file: string;
  subscriptionId: string;
  /**
   * `stackwarden:keyVaultSubscriptions`: further subscriptions searched, after `subscriptionId`, for
   * the vault a TDE protector's key names. Absent: none (only the stack's subscription is searched).
   */
  keyVaultSubscriptions?: string[];
  /** How the pipelines apply this stack (`stackwarden:engine`); absent means native. */
  engine?: StackEngine;
  databases: DesiredDatabase[];
  elasticPools: ElasticPoolTarget[];
  batch: { resourceGroups?: string[]; locations: string[]; workspaces: BatchWorkspaceTarget[]; source?: SourceLocation };
  policies: RuleSettings;
  exemptions: Exemption[];
  /** Absent when the stack names no artifacts. */
  artifacts?: ArtifactsTarget;
  /**
   * Post-deploy probes of the certificate issuers; their parameters are references, never values.
   * Always set by the loader; optional so that hand-built configs need not name it (absent: none).
   */
  probes?: ProbeSpec[];
  /** Undefined when the stack has no `stackwarden:residency`. */
  residency?: ResidencyConfig;
  /** `stackwarden:scope`; absent: only the listed databases are judged. */
  scope?: StackScope;
  /**
   * Set once the scope has been discovered (src/usecases/scope.ts): `databases` then holds the
   * discovered ones too (`discovered: true`), and `exemptions` the scope's exemptions of them.
   */
  coverage?: ScopeCoverage;
}

type RawKeys = {
  "stackwarden:subscriptionId": string;
  "stackwarden:engine"?: StackEngine;
  "stackwarden:keyVaultSubscriptions"?: string[];
  "stackwarden:databases"?: Omit<DesiredDatabase, "source">[];
  "stackwarden:elasticPools"?: Omit<ElasticPoolTarget, "source">[];
  "stackwarden:batch"?: { resourceGroups?: string[]; locations?: string[]; workspaces?: BatchWorkspaceTarget[] };
  "stackwarden:policies"?: ConfiguredRuleSettings;
  "stackwarden:exemptions"?: Omit<Exemption, "source">[];
  "stackwarden:artifacts"?: { paths: string[]; rules: string[] };
  "stackwarden:probes"?: RawProbe[];
  "stackwarden:residency"?: { allowedCountries: string[]; sites?: Omit<ResidencySite, "source">[] };
  "stackwarden:scope"?: RawScope;
};

/** Options of stackConfigFromValues. */
export interface ConfigValuesOptions {
  /**
   * Keys Pulumi holds as secrets (`pulumi.runtime.isConfigSecret`). Their values arrive decrypted;
   * in `stackwarden:probes` the decrypted parameters are taken as the secrets they were.
   */
  secretKeys?: ReadonlySet<string>;
}

let validator: { version: number; validate: ValidateFunction } | undefined;
function getValidator(): ValidateFunction {
  if (validator?.version !== registryVersion()) {
    // verbose: errors carry the value and its schema, so a broken naming rule is quoted in words.
    const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, verbose: true });
    ajv.addVocabulary(["x-rule"]);
    addFormats(ajv, ["date"]);
    validator = { version: registryVersion(), validate: ajv.compile(stackKeysSchema()) };
  }
  return validator.validate;
}

/** Parses and validates stack file text. Errors are YamlInputErrors naming file, line, column and key path. */
export function parseStackConfig(file: string, text: string, env: NodeJS.ProcessEnv): StackConfig {
  const y = parseLocatedYaml(file, text);
  const root = y.value;
  if (root === null || root === undefined || typeof root !== "object" || Array.isArray(root)) {
    throw new YamlInputError(file, 1, 1, "", "a stack file must be a mapping with a `config:` key");
  }
  const config = (root as Record<string, unknown>).config;
  if (config === undefined || config === null) {
    throw new YamlInputError(file, 1, 1, "config", 'missing "config:" with at least "stackwarden:subscriptionId"');
  }
  if (typeof config !== "object" || Array.isArray(config)) {
    const at = locate(y, ["config"]);
    throw new YamlInputError(file, at.line, at.column, "config", "must be a mapping of keys");
  }
  const keys: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) if (k.startsWith("stackwarden:")) keys[k] = v;
  resolveSecureValues(keys, env, (path, problem) => {
    const at = locate(y, ["config", ...path]);
    return new YamlInputError(file, at.line, at.column, formatKeyPath(["config", ...path]), problem);
  });
  const plain = plainProbeParameter(keys["stackwarden:probes"]);
  if (plain) {
    const path = ["config", "stackwarden:probes", ...plain];
    const at = locate(y, path);
    throw new YamlInputError(file, at.line, at.column, formatKeyPath(path), PLAIN_PARAMETER_PROBLEM);
  }
  const v = getValidator();
  if (!v(keys)) throw toLocatedError(y, pickError(v.errors ?? []), ["config"]);
  return build(
    keys as RawKeys,
    file,
    (path) => {
      const at = locate(y, ["config", ...path]);
      return { file, line: at.line, column: at.column };
    },
    y,
  );
}

/**
 * Validates values that came from elsewhere (the Pulumi program's `pulumi.Config`), with the same
 * schema. Keys are `stackwarden:<name>`. Errors name the key path.
 */
export function stackConfigFromValues(values: Record<string, unknown>, source: string, options: ConfigValuesOptions = {}): StackConfig {
  const probesAreSecret = options.secretKeys?.has("stackwarden:probes") ?? false;
  if (probesAreSecret) values = { ...values, "stackwarden:probes": markDecryptedParameters(values["stackwarden:probes"]) };
  values = withYamlDatesAsDates(values);
  const plain = plainProbeParameter(values["stackwarden:probes"]);
  if (plain) throw new Error(`${source}: ${formatKeyPath(["stackwarden:probes", ...plain])}: ${PLAIN_PARAMETER_PROBLEM}`);
  const v = getValidator();
  if (!v(values)) {
    const err = pickError(v.errors ?? []);
    const path = pointerToPath(err.instancePath);
    if (err.keyword === "additionalProperties") path.push(String(err.params.additionalProperty));
    throw new Error(`${source}: ${formatKeyPath(path)}: ${describeAjvError(err)}`);
  }
  return build(values as RawKeys, source, () => undefined, undefined, probesAreSecret);
}

/** A YAML timestamp at midnight UTC, as Pulumi's CLI hands over an unquoted `2099-12-31`. */
const YAML_MIDNIGHT = /^(\d{4}-\d{2}-\d{2})T00:00:00(?:\.0+)?Z$/;

/**
 * The exemptions' `expires` as the day the file names. Pulumi's CLI reads an unquoted
 * `expires: 2099-12-31` as a YAML timestamp and hands it to the program as `2099-12-31T00:00:00Z`,
 * where `check` (which reads the file itself) sees the date: both must accept the same file.
 */
function withYamlDatesAsDates(values: Record<string, unknown>): Record<string, unknown> {
  const days = (list: unknown): unknown =>
    Array.isArray(list)
      ? list.map((e) => {
          const expires = (e as { expires?: unknown } | null)?.expires;
          const day = typeof expires === "string" ? YAML_MIDNIGHT.exec(expires)?.[1] : undefined;
          return day ? { ...(e as object), expires: day } : e;
        })
      : list;
  const scope = values["stackwarden:scope"] as { exemptions?: unknown } | undefined;
  return {
    ...values,
    ...("stackwarden:exemptions" in values ? { "stackwarden:exemptions": days(values["stackwarden:exemptions"]) } : {}),
    ...(scope && typeof scope === "object" && "exemptions" in scope
      ? { "stackwarden:scope": { ...scope, exemptions: days(scope.exemptions) } }
      : {}),
  };
}

/**
 * In a `stackwarden:probes` value Pulumi decrypted, a plain parameter was a `secure:` one: it is
 * wrapped back as `{ secure }` (holding the plaintext) so the schema accepts it and build() knows.
 */
function markDecryptedParameters(probes: unknown): unknown {
  if (!Array.isArray(probes)) return probes;
  return probes.map((p) => {
    const params = (p as { parameters?: unknown } | null)?.parameters;
    if (!params || typeof params !== "object" || Array.isArray(params)) return p;
    const marked = Object.fromEntries(
      Object.entries(params).map(([k, v]) => [k, typeof v === "string" && !parseEnvReference(v) ? { secure: v } : v]),
    );
    return { ...(p as object), parameters: marked };
  });
}

function build(
  raw: RawKeys,
  file: string,
  where: (path: (string | number)[]) => SourceLocation | undefined,
  y?: LocatedYaml,
  secretsDecrypted = false,
): StackConfig {
  const databases = (raw["stackwarden:databases"] ?? []).map((d, i) => ({ ...d, source: where(["stackwarden:databases", i]) }));
  const seen = new Map<string, number>();
  databases.forEach((d, i) => {
    const key = databaseLabel(d).toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) {
      const firstLine = databases[first].source?.line;
      const problem = `duplicate database ${databaseLabel(d)}: already listed as stackwarden:databases[${first}]${firstLine ? ` (line ${firstLine})` : ""}`;
      if (y) {
        const at = locate(y, ["config", "stackwarden:databases", i]);
        throw new YamlInputError(file, at.line, at.column, `config.stackwarden:databases[${i}]`, problem);
      }
      throw new Error(`${file}: stackwarden:databases[${i}]: ${problem}`);
    }
    seen.set(key, i);
  });
  const pools = raw["stackwarden:elasticPools"] ?? [];
  const poolSeen = new Set<string>();
  pools.forEach((p, i) => {
    const key = elasticPoolLabel(p).toLowerCase();
    if (poolSeen.has(key)) {
      const at = y ? locate(y, ["config", "stackwarden:elasticPools", i]) : { line: 0, column: 0 };
      throw new YamlInputError(
        file,
        at.line,
        at.column,
        `config.stackwarden:elasticPools[${i}]`,
        `duplicate elastic pool ${elasticPoolLabel(p)}`,
      );
    }
    poolSeen.add(key);
  });
  const residency = buildResidency(raw["stackwarden:residency"], file, where, y);
  const scope = buildScope(
    raw["stackwarden:scope"],
    raw["stackwarden:subscriptionId"],
    (path) => where(["stackwarden:scope", ...path]),
    (path, problem) => {
      const full = ["stackwarden:scope", ...path];
      if (y) {
        const at = locate(y, ["config", ...full]);
        throw new YamlInputError(file, at.line, at.column, formatKeyPath(["config", ...full]), problem);
      }
      throw new Error(`${file}: ${formatKeyPath(full)}: ${problem}`);
    },
  );
  return {
    file,
    subscriptionId: raw["stackwarden:subscriptionId"],
    engine: raw["stackwarden:engine"] ?? "native",
    ...(raw["stackwarden:keyVaultSubscriptions"]?.length ? { keyVaultSubscriptions: raw["stackwarden:keyVaultSubscriptions"] } : {}),
    databases,
    elasticPools: pools.map((p, i) => ({ ...p, source: where(["stackwarden:elasticPools", i]) })),
    batch: {
      resourceGroups: raw["stackwarden:batch"]?.resourceGroups,
      locations: raw["stackwarden:batch"]?.locations ?? [],
      workspaces: (raw["stackwarden:batch"]?.workspaces ?? []).map((w, i) => ({
        ...w,
        source: where(["stackwarden:batch", "workspaces", i]),
      })),
      source: raw["stackwarden:batch"] ? where(["stackwarden:batch", "locations"]) : undefined,
    },
    policies: resolveRuleSettings(raw["stackwarden:policies"]),
    exemptions: (raw["stackwarden:exemptions"] ?? []).map((e, i) => ({ ...e, source: where(["stackwarden:exemptions", i]) })),
    residency,
    ...(scope ? { scope } : {}),
    artifacts: buildArtifacts(raw["stackwarden:artifacts"], where),
    probes: buildProbes(raw["stackwarden:probes"], {
      secretsDecrypted,
      where: (path) => where(["stackwarden:probes", ...path]),
      fail: (path, problem) => {
        const keyPath = ["stackwarden:probes", ...path];
        if (!y) return new Error(`${file}: ${formatKeyPath(keyPath)}: ${problem}`);
        const at = locate(y, ["config", ...keyPath]);
        return new YamlInputError(file, at.line, at.column, formatKeyPath(["config", ...keyPath]), problem);
      },
    }),
  };
}

function buildArtifacts(
  raw: RawKeys["stackwarden:artifacts"],
  where: (path: (string | number)[]) => SourceLocation | undefined,
): ArtifactsTarget | undefined {
  if (!raw) return undefined;
  return {
    paths: [...raw.paths],
    rules: [...raw.rules],
    source: where(["stackwarden:artifacts"]),
    pathSources: raw.paths.map((_, i) => where(["stackwarden:artifacts", "paths", i])),
    ruleSources: raw.rules.map((_, i) => where(["stackwarden:artifacts", "rules", i])),
  };
}

/** Hints for codes people write that ISO 3166-1 does not assign. */
const COUNTRY_CODE_HINTS: Record<string, string> = { UK: "GB", EL: "GR", EU: "the member states' own codes" };

/** `stackwarden:residency`, its country codes checked against ISO 3166-1 and its site names unique. */
function buildResidency(
  raw: RawKeys["stackwarden:residency"],
  file: string,
  where: (path: (string | number)[]) => SourceLocation | undefined,
  y?: LocatedYaml,
): ResidencyConfig | undefined {
  if (!raw) return undefined;
  const fail = (path: (string | number)[], problem: string): never => {
    const full = ["stackwarden:residency", ...path];
    if (y) {
      const at = locate(y, ["config", ...full]);
      throw new YamlInputError(file, at.line, at.column, formatKeyPath(["config", ...full]), problem);
    }
    throw new Error(`${file}: ${formatKeyPath(full)}: ${problem}`);
  };
  raw.allowedCountries.forEach((code, i) => {
    if (code !== code.toUpperCase()) fail(["allowedCountries", i], `write country codes in upper case: "${code.toUpperCase()}"`);
    if (!isAssignedCountryCode(code)) {
      const hint = COUNTRY_CODE_HINTS[code];
      fail(["allowedCountries", i], `"${code}" is not an ISO 3166-1 alpha-2 country code${hint ? ` (use ${hint})` : ""}`);
    }
  });
  const seen = new Map<string, number>();
  (raw.sites ?? []).forEach((site, i) => {
    const first = seen.get(site.name.toLowerCase());
    if (first !== undefined) fail(["sites", i, "name"], `duplicate site name "${site.name}": already sites[${first}]`);
    seen.set(site.name.toLowerCase(), i);
  });
  return {
    allowedCountries: [...new Set(raw.allowedCountries)],
    sites: (raw.sites ?? []).map((site, i) => ({ ...site, source: where(["stackwarden:residency", "sites", i]) })),
    source: where(["stackwarden:residency"]),
  };
}

/**
 * Values Pulumi stores as `secure:` need Pulumi to decrypt. Each can be supplied instead through
 * `STACKWARDEN_<KEY>` (e.g. STACKWARDEN_SUBSCRIPTION_ID); without it the load stops and says so.
 */
function resolveSecureValues(
  keys: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  fail: (path: (string | number)[], problem: string) => Error,
): void {
  for (const [k, v] of Object.entries(keys)) {
    const envName = `STACKWARDEN_${k
      .slice("stackwarden:".length)
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .toUpperCase()}`;
    if (isSecure(v)) {
      const supplied = env[envName];
      if (supplied === undefined || supplied === "") {
        throw fail([k], `is a Pulumi secret (secure:) that only Pulumi can decrypt; set ${envName} to supply it to the CLI`);
      }
      keys[k] = parseEnvValue(supplied);
      continue;
    }
    // A probe parameter may be a Pulumi secret: it stays a reference, resolved when the probe runs.
    const nested = findSecure(v, [], k === "stackwarden:probes" ? isProbeParameterPath : undefined);
    if (nested)
      throw fail(
        [k, ...nested],
        `is a Pulumi secret (secure:) inside a structured value; the CLI cannot decrypt it: set ${envName} to the whole value as JSON`,
      );
  }
}

const isSecure = isSecureValue;

/** The path of the first `secure:` value inside `v`, skipping those at paths `allowed` accepts. */
function findSecure(
  v: unknown,
  path: (string | number)[],
  allowed?: (path: readonly (string | number)[]) => boolean,
): (string | number)[] | undefined {
  if (isSecure(v)) return allowed?.(path) ? undefined : path;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = findSecure(v[i], [...path, i], allowed);
      if (p) return p;
    }
  } else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      const p = findSecure(x, [...path, k], allowed);
      if (p) return p;
    }
  }
  return undefined;
}

function parseEnvValue(s: string): unknown {
  const t = s.trim();
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      return JSON.parse(t);
    } catch {
      return s;
    }
  }
  return s;
}
