import type { ArmResourceReader } from "../../platform/arm/arm-resource-reader";
import type { BatchAiClient } from "../../services/batchai/client";
import type { BinaryAnalysisClient } from "../../services/binary-analysis/client";
import type { ApiSetuSettings } from "../../services/certificates/settings";
import type { GeocodingClient } from "../../services/geocoding/client";
import type { AuthorizationClient } from "../../services/authorization/client";
import type { KeyVaultClient } from "../../services/keyvault/client";
import type { SqlClient } from "../../services/sql/client";

/**
 * What the fact kinds read through: the services' clients and settings their reads need, declared
 * here so the domain names no client set. `src/clients/client-set.ts` satisfies it (every command,
 * the provider plugin and the policy pack hand theirs over); a test may hand over its own.
 */
export interface FactClients {
  /** The environment the clients were built from (the settings a kind checks before reading). */
  readonly env: NodeJS.ProcessEnv;
  readonly sql: SqlClient;
  readonly batch: BatchAiClient;
  /** Key Vault's management plane (vaults and their keys; read-only). */
  readonly keyVault: KeyVaultClient;
  /** Azure RBAC (role assignments that apply to a scope, role definitions; read-only). */
  readonly authorization: AuthorizationClient;
  readonly geocoding: GeocodingClient;
  /**
   * Any Resource Manager resource read by path and api-version, with the typed clients' token,
   * retries and pacing: for a kind whose read no service client has a method for yet.
   */
  readonly arm: ArmResourceReader;
  /** The certificate issuers' settings (endpoint, keys, naming), read without requiring the keys. */
  readonly apisetu: ApiSetuSettings;
  /** The binary analysis service, opened on first use. */
  binaryAnalysis(): Promise<{ client: BinaryAnalysisClient }>;
  /** A value shared for `ttlMs` by every caller asking with the same key; a rejected value is not kept. */
  remember<T>(key: string, ttlMs: number, make: () => Promise<T>): Promise<T>;
}
