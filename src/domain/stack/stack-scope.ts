import type { SourceLocation } from "../../platform/yaml/source-location";
import { AZURE_NAME_RULES as N, azureNameSchema as name } from "./azure-names";

/**
 * `stackwarden:scope`: the estate a stack answers for, beside the databases it lists. Every
 * database found in it (through Azure's own lists: src/domain/facts/discover-databases.ts) and not listed is judged
 * as the scope's desired state says, and written to only with `remediate`. Azure Policy's
 * assignment scope and exclusions, Prowler's every-server-of-every-subscription, in the stack file.
 */

const GUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/** Tag filters: `key: value`, or `key: "*"` for any value of the tag. */
const TAG_FILTER = {
  type: "object",
  minProperties: 1,
  propertyNames: { minLength: 1, maxLength: 512 },
  additionalProperties: { type: "string", maxLength: 256 },
} as const;

/** The JSON Schema of `stackwarden:scope` (stack-schema.ts registers it). */
export const SCOPE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  description:
    "optional: the estate whose databases are judged beside the listed ones (discovered with Servers_List and Databases_ListByServer)",
  properties: {
    subscriptions: {
      type: "array",
      minItems: 1,
      uniqueItems: true,
      items: { type: "string", pattern: GUID, "x-rule": "subscription id: a GUID such as 00000000-0000-0000-0000-000000000000" },
      description:
        "optional, default [stackwarden:subscriptionId]: the subscriptions whose servers are listed, each in its own throttle budget",
    },
    resourceGroups: {
      type: "array",
      minItems: 1,
      uniqueItems: true,
      items: name(N.resourceGroup),
      description: "optional, default every resource group: only servers in these groups (in every subscription of the scope)",
    },
    tags: {
      type: "object",
      additionalProperties: false,
      description: "optional: tag filters on a database's tags over its server's (a database's own tag wins)",
      properties: {
        include: { ...TAG_FILTER, description: 'optional: every tag named must match (`key: value`, `key: "*"` any value)' },
        exclude: { ...TAG_FILTER, description: "optional: a database matching any tag named is out of scope" },
      },
    },
    transparentDataEncryption: {
      type: "string",
      enum: ["Enabled", "Disabled"],
      description: "optional, default Enabled: the desired TDE status of every database found in scope and not listed (never master)",
    },
    remediate: {
      type: "boolean",
      description: "optional, default false: whether apply and watch --auto-remediate may write to databases found in scope and not listed",
    },
    exemptions: {
      type: "array",
      description: "optional: databases found in scope exempted from rules, named by database, server, resource group or tag",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["reason"],
        properties: {
          database: {
            type: "string",
            pattern: "^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?/[^/]+$",
            description: "one of database, server, resourceGroup, tag: a database as server/database",
            "x-rule": "a database as <server>/<database>, such as sql-prod-1/orders",
          },
          server: name(N.sqlServer),
          resourceGroup: name(N.resourceGroup),
          tag: {
            type: "string",
            minLength: 1,
            description: "a tag as key=value, or key for any value",
          },
          rules: { type: "array", items: { type: "string" }, description: "optional, default every rule" },
          reason: { type: "string", minLength: 1, description: "required: why, for the audit trail" },
          expires: { type: "string", format: "date", description: "optional: YYYY-MM-DD; the exemption stops applying after this day" },
        },
      },
    },
  },
} as const;

/** What a scope exemption names: exactly one of these. */
export const SCOPE_EXEMPTION_TARGETS = ["database", "server", "resourceGroup", "tag"] as const;
export type ScopeExemptionTarget = (typeof SCOPE_EXEMPTION_TARGETS)[number];

/** One exemption of `stackwarden:scope.exemptions`. */
export interface ScopeExemption {
  target: ScopeExemptionTarget;
  /** What it names: `server/database`, a server, a resource group, `key=value` or `key`. */
  value: string;
  rules?: string[];
  reason: string;
  expires?: string;
  source?: SourceLocation;
}

/** A validated `stackwarden:scope`. */
export interface StackScope {
  subscriptions: string[];
  /** Absent: every resource group. */
  resourceGroups?: string[];
  includeTags: Record<string, string>;
  excludeTags: Record<string, string>;
  transparentDataEncryption: "Enabled" | "Disabled";
  remediate: boolean;
  exemptions: ScopeExemption[];
  /** Where `stackwarden:scope` is written: the location of every discovered database's findings. */
  source?: SourceLocation;
}

/** `stackwarden:scope` as the schema accepts it. */
export interface RawScope {
  subscriptions?: string[];
  resourceGroups?: string[];
  tags?: { include?: Record<string, string>; exclude?: Record<string, string> };
  transparentDataEncryption?: "Enabled" | "Disabled";
  remediate?: boolean;
  exemptions?: ({ [K in ScopeExemptionTarget]?: string } & { rules?: string[]; reason: string; expires?: string })[];
}

/** Builds the scope from its validated value; `fail` locates what the schema cannot check (an exemption naming no target, or two). */
export function buildScope(
  raw: RawScope | undefined,
  stackSubscription: string,
  where: (path: (string | number)[]) => SourceLocation | undefined,
  fail: (path: (string | number)[], problem: string) => never,
): StackScope | undefined {
  if (!raw) return undefined;
  const exemptions = (raw.exemptions ?? []).map((e, i): ScopeExemption => {
    const named = SCOPE_EXEMPTION_TARGETS.filter((t) => e[t] !== undefined);
    if (named.length !== 1)
      fail(
        ["exemptions", i],
        named.length === 0
          ? "an exemption names what it exempts: one of database, server, resourceGroup or tag"
          : `an exemption names one thing; this one names ${named.join(" and ")}`,
      );
    const target = named[0];
    return {
      target,
      value: e[target]!,
      ...(e.rules ? { rules: [...e.rules] } : {}),
      reason: e.reason,
      ...(e.expires ? { expires: e.expires } : {}),
      source: where(["exemptions", i]),
    };
  });
  return {
    subscriptions: raw.subscriptions ? [...raw.subscriptions] : [stackSubscription],
    ...(raw.resourceGroups ? { resourceGroups: [...raw.resourceGroups] } : {}),
    includeTags: { ...raw.tags?.include },
    excludeTags: { ...raw.tags?.exclude },
    transparentDataEncryption: raw.transparentDataEncryption ?? "Enabled",
    remediate: raw.remediate ?? false,
    exemptions,
    source: where([]),
  };
}

/** A database as discovery found it: where it is, its tags over its server's. */
export interface ScopedDatabase {
  subscriptionId: string;
  resourceGroup: string;
  server: string;
  database: string;
  /** The server's tags with the database's own over them. */
  tags: Readonly<Record<string, string>>;
}

/** Whether a tag filter entry matches tags (`*`: any value of the key). */
function tagMatches(tags: Readonly<Record<string, string>>, key: string, value: string): boolean {
  const found = Object.keys(tags).find((k) => k.toLowerCase() === key.toLowerCase());
  return found !== undefined && (value === "*" || tags[found] === value);
}

/** Whether a database's tags pass the scope's tag filters (its resource group and subscription were listed by scope). */
export function tagsInScope(scope: Pick<StackScope, "includeTags" | "excludeTags">, tags: Readonly<Record<string, string>>): boolean {
  if (!Object.entries(scope.includeTags).every(([k, v]) => tagMatches(tags, k, v))) return false;
  return !Object.entries(scope.excludeTags).some(([k, v]) => tagMatches(tags, k, v));
}

/** Whether a scope exemption names a database. */
export function exemptionNames(e: ScopeExemption, db: ScopedDatabase): boolean {
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  switch (e.target) {
    case "database":
      return same(e.value, `${db.server}/${db.database}`);
    case "server":
      return same(e.value, db.server);
    case "resourceGroup":
      return same(e.value, db.resourceGroup);
    case "tag": {
      const eq = e.value.indexOf("=");
      return eq < 0 ? tagMatches(db.tags, e.value, "*") : tagMatches(db.tags, e.value.slice(0, eq), e.value.slice(eq + 1));
    }
  }
}

/** Whether a listed database (in the stack's subscription) lies in the scope's subscriptions and resource groups. */
export function listedInScope(scope: StackScope, subscriptionId: string, resourceGroup: string): boolean {
  const same = (a: string) => (b: string) => a.toLowerCase() === b.toLowerCase();
  if (!scope.subscriptions.some(same(subscriptionId))) return false;
  return !scope.resourceGroups || scope.resourceGroups.some(same(resourceGroup));
}

/** What a stack's scope covered in one run: the counts every report leads with. */
export interface ScopeCoverage {
  /** Subscriptions and servers listed. */
  subscriptions: number;
  servers: number;
  /** Listed databases that discovery found in scope. */
  listed: number;
  /** Databases found in scope that the stack does not list (judged with the scope's desired state). */
  discovered: number;
  /** The discovered databases' ids, lower-case. */
  discoveredIds: string[];
  /** Listed databases discovery did not find in scope (`rg/server/db`): still judged, and reported. */
  listedOutside: string[];
  /** The ids of every database in scope (listed and discovered), lower-case. */
  inScopeIds: string[];
}
