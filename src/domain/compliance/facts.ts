import type { SourceLocation } from "./source-location";

/** A value not known yet (a Pulumi preview of a resource still to be created or changed). */
export const UNKNOWN = Symbol.for("stackwarden.unknown");
export type Maybe<T> = T | typeof UNKNOWN;

/**
 * What every fact carries besides its data: where the stack file names it (report locations) and,
 * opaque to the rules, where it came from (`origin`: the Pulumi URN of the resource in the policy
 * pack), which findings carry through so a violation is reported on that resource.
 */
export interface FactOrigin {
  source?: SourceLocation;
  origin?: string;
}

/** A database's TDE status, as the rules see it. */
export interface DatabaseFacts extends FactOrigin {
  /** The database's ARM id (`.../servers/S/databases/D`). */
  id: string;
  resourceGroup: string;
  server: string;
  database: string;
  liveTdeStatus: Maybe<string | undefined>;
  /**
   * Where `liveTdeStatus` came from: `live` (read from the API, the default) or `desired` (a Pulumi
   * preview, where the status the resource will have is the one the stack sets).
   */
  tdeStatusSource?: "live" | "desired";
}

/** What a service tier advisor said, in the spec's field names. */
export interface AdvisorFacts {
  name?: string;
  overallRecommendationServiceLevelObjective?: string;
  currentServiceLevelObjective?: string;
  /** The spec's `confidence`, 0..1. */
  confidence?: number;
  observationPeriodEnd?: string;
}

/** A database's service tier advice, beside the tier the stack intends. */
export interface TierAdvisorFacts extends FactOrigin {
  /** The database's ARM id. */
  id: string;
  resourceGroup: string;
  server: string;
  database: string;
  /** The `serviceObjective` the stack intends, if any. */
  intendedServiceObjective?: string;
  /** Advisor output; undefined when the database has none, UNKNOWN during a preview. */
  advisor: Maybe<AdvisorFacts | undefined>;
}

/** One Batch AI usage of a location the stack names. */
export interface UsageFacts extends FactOrigin {
  subscriptionId: string;
  location: string;
  /** `name.value` of the usage, e.g. `cores`. */
  name: string;
  displayName?: string;
  currentValue: Maybe<number | undefined>;
  limit: Maybe<number | undefined>;
  unit?: string;
}

/** One signature rule that matched an artifact. */
export interface ArtifactMatchFacts {
  /** The signature (YARA) rule's name. */
  rule: string;
  /** The rule file declaring it, relative to the project directory. */
  ruleFile: string;
  tags: string[];
  /** Byte offset of the rule's first matched string; absent when it matched on its condition alone. */
  offset?: number;
  /** Length in bytes of that matched string, when known. */
  length?: number;
  /** Whether `offset` lies in the unpacked content of a packed file (then it is no place in the file itself). */
  inUnpackedContent: boolean;
}

/**
 * The binary analysis gate's summary of one artifact (error > matched > packed-not-unpackable >
 * clean), computed by `artifactVerdict` only.
 */
export type ArtifactVerdict = "clean" | "matched" | "packed-not-unpackable" | "error";

/** What the binary analysis gate found about one file of `stackwarden:artifacts`. */
export interface ArtifactFacts extends FactOrigin {
  /** Relative to the project directory, `/` separators: the artifact's identity (resource id `artifact:<path>`). */
  path: string;
  /** The file as reports locate it (relative to the working directory, like the stack file); default `path`. */
  file?: string;
  /** sha-256 (hex) of the file that was scanned. */
  sha256: string;
  /** Digest of the rule set it was scanned with. */
  rulesDigest: string;
  /** UNKNOWN while a preview does not know the scan yet. */
  verdict: Maybe<ArtifactVerdict>;
  matches: ArtifactMatchFacts[];
  /** The packer recognised in the file (`UPX 3.94`, `ASPack`), if any. */
  packer?: string;
  /** Whether the rules ran on the unpacked content. */
  scannedUnpacked: boolean;
  /** Why a packed file could not be unpacked (it was then scanned as it is). */
  unpackError?: string;
  /** Why the file could not be scanned at all. */
  scanError?: string;
}

/**
 * A certificate probe of the stack (`stackwarden:probes`) and its last result. Only what a probe
 * keeps: never its parameters (personal data) nor the document.
 */
export interface ProbeFacts extends FactOrigin {
  /** The probe's name in the stack. */
  name: string;
  issuer: string;
  doctype: string;
  format: string;
  /**
   * The last run's outcome; undefined when the probe has no result yet (it has not run since it
   * was declared), UNKNOWN during a preview.
   */
  outcome: Maybe<"passed" | "failed" | undefined>;
  /** From sending the request to the whole answer, in ms. */
  latencyMs?: number;
  /** Bytes of the document, when one came back. */
  size?: number;
  /** Hex sha-256 of the document, when one came back. */
  sha256?: string;
  /** Why it failed: the issuer's error code (`record_not_found` ...) or `check-failed`, and the message. */
  error?: { code: string; message: string };
}

/** What the data-residency rule places in a country. */
export type PlacementKind = "sql-database" | "batch-workspace" | "batch-cluster" | "batch-file-server" | "site";

/**
 * Where one located resource or named site is, judged against the countries the stack allows.
 * Gathered only when the stack has `stackwarden:residency`: no residency section, no placements.
 */
export interface PlacementFacts extends FactOrigin {
  /** The resource's ARM id; `site:<name>` for a site. */
  id: string;
  /** A short name for tables and messages: `sql-prod-1/orders`, `rg-ml/ws-vision/gpu-nc6`, the site's name. */
  label: string;
  kind: PlacementKind;
  /** The canonical Azure region (`westeurope`), when the location names a known one. */
  region?: string;
  /** The location exactly as the API returned it (`West Europe`). */
  location?: string;
  /** The site's address. */
  address?: string;
  /** The region's point, or the address's geocoded position. */
  coordinates?: { lat: number; lng: number };
  /**
   * ISO 3166-1 alpha-2, upper case. Undefined when it could not be placed (an unknown region, a
   * point in no country, an address that could not be geocoded: `reason` says which); UNKNOWN
   * while its location is not known yet (a Pulumi preview).
   */
  country: Maybe<string | undefined>;
  /** Why it could not be placed; for a placed one, how it was (region and nearest place, geocoding level). */
  reason: string;
  /** The countries the stack allows (`stackwarden:residency.allowedCountries`), ISO alpha-2. */
  allowedCountries: string[];
}

/** Everything the rules judge: plain data, gathered by `check` from the APIs or by the pack from resources. */
export interface ComplianceFacts {
  subscriptionId: string;
  databases: DatabaseFacts[];
  tierAdvisors: TierAdvisorFacts[];
  usages: UsageFacts[];
  artifacts: ArtifactFacts[];
  /** The stack's certificate probes with their last results. */
  probes: ProbeFacts[];
  /** Where the stack's located resources and sites are; empty without `stackwarden:residency`. */
  placements: PlacementFacts[];
}

/** Facts with nothing in them, to build on. */
export function emptyFacts(subscriptionId: string): ComplianceFacts {
  return { subscriptionId, databases: [], tierAdvisors: [], usages: [], artifacts: [], probes: [], placements: [] };
}
