import type { ArmRead } from "../../platform/arm/arm-read";
import type { IdStyle } from "../../platform/arm/resource-id";
import type { ApiSetuSettings } from "../../services/certificates/settings";
import type { ArtifactFiles } from "../artifacts/artifact-files";
import type { ScanArtifactsOptions } from "../artifacts/artifact-gate";
import type { ScanCacheStorage } from "../artifacts/scan-cache";
import type { ResidencySources } from "../residency/place-stack";
import type { FactReads } from "./fact-reads";

/** Any Resource Manager resource read by its path and api-version, with no row of an operation table (and so no spec to check answers against). */
export interface ArmResourceReads {
  /** How request paths are written for this endpoint (`sqlServerId(ref, arm.style)`). */
  readonly style: IdStyle;
  /** GETs one resource, with the receipt of its read. */
  read<T extends object = Record<string, unknown>>(req: {
    /** The spec's operationId (`Servers_Get`): what errors, logs and the receipt name. */
    operation: string;
    /** The resource's path: its ARM id, written in `style`. */
    path: string;
    /** The api-version sent. */
    apiVersion: string;
    signal?: AbortSignal;
  }): Promise<ArmRead<T>>;
}

/**
 * What the fact kinds read through, declared here by what they need (no service client class):
 * Resource Manager's operations by name (`reads`), the geocoder, the artifact scanner and the
 * settings their reads check. `src/clients/client-set.ts` satisfies it (every command, the provider
 * plugin and the policy pack hand theirs over); a test may hand over its own.
 */
export interface FactClients {
  /** The environment the clients were built from (the settings a kind checks before reading). */
  readonly env: NodeJS.ProcessEnv;
  /** Every operation of the services' operation tables, by name (fact-reads.ts): how a kind reads Resource Manager. */
  readonly reads: FactReads;
  /**
   * Any Resource Manager resource read by path and api-version, with the same token, retries and
   * pacing: for a kind loaded at run time that reads what no table row declares yet.
   */
  readonly arm: ArmResourceReads;
  /** What placing reads through: the geocoding service (addresses and regions' points). */
  readonly geocoding: ResidencySources["geocoding"];
  /** The certificate issuers' settings (endpoint, keys, naming), read without requiring the keys. */
  readonly apisetu: ApiSetuSettings;
  /** The binary analysis service, opened on first use: what an artifact scan sends its files to (as the artifact gate declares it). */
  binaryAnalysis(): Promise<{ client: ScanArtifactsOptions["client"] }>;
  /** The artifact gate's files: the project's artifacts and rule files (this machine's disk, or a test's). */
  readonly artifactFiles: ArtifactFiles;
  /** Where the scan cache keeps its entries, when the environment turns it on (`STACKWARDEN_SCAN_CACHE`). */
  readonly scanCacheStorage: ScanCacheStorage;
  /** A value shared for `ttlMs` by every caller asking with the same key; a rejected value is not kept. */
  remember<T>(key: string, ttlMs: number, make: () => Promise<T>): Promise<T>;
}
