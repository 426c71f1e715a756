import { ArmOperations } from "../platform/arm/arm-operations";
import { ArmResourceReader } from "../platform/arm/arm-resource-reader";
import { localArtifactFiles, localScanCacheStorage } from "../platform/files/artifact-files";
import { loggerFromEnv } from "../platform/http/logger";
import type { TokenCredential } from "../platform/http/token-credential";
import { endpointsFromEnv, geocodingSettingsFromEnv, serviceSetting } from "../platform/settings/endpoints";
import { emulatorOnlyEnvironment, endpointSettingName } from "../platform/settings/emulator-settings";
import { namingStyleFromEnv } from "../platform/settings/naming-style";
import { BatchAiClient } from "../services/batchai/client";
import { CertificatesClient } from "../services/certificates/client";
import { apisetuSettingsFromEnv, requireApiSetuKeys, type ApiSetuSettings } from "../services/certificates/settings";
import { GeocodingClient } from "../services/geocoding/client";
import { ImdsClient } from "../services/imds/client";
import { ARM_READS, type ArmReadTable } from "../services/arm-reads";
import { AuthorizationClient } from "../services/authorization/client";
import { KeyVaultClient } from "../services/keyvault/client";
import { MonitorClient } from "../services/monitor/client";
import { SqlClient } from "../services/sql/client";
import { openBinaryAnalysisService, type BinaryAnalysisService } from "./binary-analysis-service";
import { defaultCredential } from "./default-credential";

/**
 * Every service client, built from one environment on first use: the one place that makes clients.
 * A getter that needs a setting the environment lacks throws a SettingsError naming the variable,
 * so a command that never reaches that service never needs its variable.
 */
export interface ClientSet {
  /** The environment the clients were built from. */
  readonly env: NodeJS.ProcessEnv;
  /** Resource Manager's base URL (`STACKWARDEN_ARM_ENDPOINT`). */
  readonly armEndpoint: string;
  /** The credential every ARM client uses. */
  readonly credential: TokenCredential;
  readonly sql: SqlClient;
  readonly batch: BatchAiClient;
  /** Key Vault's management plane (vaults and their keys; read-only), through Resource Manager like `sql`. */
  readonly keyVault: KeyVaultClient;
  /** Azure RBAC (role assignments and role definitions; read-only), through Resource Manager. */
  readonly authorization: AuthorizationClient;
  /** Azure Monitor's Activity Log (who changed what), through Resource Manager like `sql`, on the same pacer. */
  readonly monitor: MonitorClient;
  /**
   * Every operation of the services' operation tables (`src/services/arm-reads.ts`), sent by name
   * with the typed clients' token, retries and pacing: what the fact kinds read through (their
   * port, `FactReads`), and how a failed read is told apart (`failureOf`).
   */
  readonly reads: ArmOperations<ArmReadTable>;
  /**
   * Any Resource Manager resource read by path and api-version, with the typed clients' token,
   * retries and pacing (a fact kind's read no operation table declares yet).
   */
  readonly arm: ArmResourceReader;
  /** IMDS (`STACKWARDEN_IMDS_ENDPOINT`): instance, identity and attested metadata. */
  readonly imds: ImdsClient;
  /** The geocoding service (`STACKWARDEN_GEOCODING_ENDPOINT`, `STACKWARDEN_GEOCODING_API_KEY`). */
  readonly geocoding: GeocodingClient;
  /** The certificate issuers' settings (endpoint, keys, naming), read without requiring the keys. */
  readonly apisetu: ApiSetuSettings;
  /** The certificate issuers (`STACKWARDEN_APISETU_*`); a SettingsError when a key is missing. */
  readonly certificates: CertificatesClient;
  /** Who applies, for the audit trail: the credential, and IMDS where this runs on Azure. */
  readonly actor: ActorClients;
  /** The artifact gate's files: this machine's disk (the project's artifacts and rule files). */
  readonly artifactFiles: typeof localArtifactFiles;
  /** Where the scan cache keeps its entries on this machine (under STACKWARDEN_CACHE_DIR). */
  readonly scanCacheStorage: typeof localScanCacheStorage;
  /**
   * The binary analysis service (`STACKWARDEN_BINARY_ANALYSIS_ENDPOINT`, or `embedded` for the
   * built-in engine, started on first use in this process). Opened once; `close()` lets it go.
   */
  binaryAnalysis(): Promise<BinaryAnalysisService>;
  /**
   * A value shared for `ttlMs` by every caller asking with the same key (the policy pack places a
   * stack's resources once per analysis, not once per policy). A rejected value is not kept.
   */
  remember<T>(key: string, ttlMs: number, make: () => Promise<T>): Promise<T>;
  /** Stops what the set started (the embedded binary analysis service); the set can be used again after. */
  close(): Promise<void>;
}

/** The clients the audit trail learns who applies from. */
export interface ActorClients {
  credential: TokenCredential;
  /** Absent where IMDS is not asked (a static token and no IMDS endpoint set). */
  imds?: ImdsClient;
}

class EnvClientSet implements ClientSet {
  private readonly made = new Map<string, unknown>();
  private opening?: Promise<BinaryAnalysisService>;
  private readonly remembered = new Map<string, { at: number; value: Promise<unknown> }>();
  readonly artifactFiles = localArtifactFiles;
  readonly scanCacheStorage = localScanCacheStorage;

  constructor(readonly env: NodeJS.ProcessEnv) {}

  private once<T>(name: string, make: () => T): T {
    if (!this.made.has(name)) this.made.set(name, make());
    return this.made.get(name) as T;
  }

  /** What chose a service's endpoint, as errors name it when nothing answers there. */
  private settingOf(variable: string): string {
    return endpointSettingName(this.env, variable);
  }

  get armEndpoint(): string {
    return this.once("armEndpoint", () => endpointsFromEnv(this.env).arm);
  }

  get credential(): TokenCredential {
    return this.once("credential", () => defaultCredential(this.env));
  }

  private get armOptions() {
    return {
      endpoint: this.armEndpoint,
      endpointSetting: this.settingOf("STACKWARDEN_ARM_ENDPOINT"),
      credential: this.credential,
      naming: namingStyleFromEnv(this.env),
    };
  }

  get sql(): SqlClient {
    return this.once("sql", () => new SqlClient(this.armOptions));
  }

  get batch(): BatchAiClient {
    return this.once("batch", () => new BatchAiClient(this.armOptions));
  }

  get keyVault(): KeyVaultClient {
    return this.once("keyVault", () => new KeyVaultClient(this.armOptions));
  }

  get authorization(): AuthorizationClient {
    return this.once("authorization", () => new AuthorizationClient(this.armOptions));
  }

  get monitor(): MonitorClient {
    return this.once("monitor", () => new MonitorClient(this.armOptions));
  }

  get reads(): ArmOperations<ArmReadTable> {
    return this.once("reads", () => new ArmOperations(this.armOptions, ARM_READS));
  }

  get arm(): ArmResourceReader {
    return this.once("arm", () => new ArmResourceReader(this.armOptions));
  }

  get imds(): ImdsClient {
    return this.once(
      "imds",
      () => new ImdsClient({ endpoint: endpointsFromEnv(this.env).imds, endpointSetting: this.settingOf("STACKWARDEN_IMDS_ENDPOINT") }),
    );
  }

  get geocoding(): GeocodingClient {
    return this.once("geocoding", () => {
      const s = geocodingSettingsFromEnv(this.env);
      return new GeocodingClient({
        endpoint: s.endpoint,
        endpointSetting: this.settingOf("STACKWARDEN_GEOCODING_ENDPOINT"),
        apiKey: s.apiKey,
        logger: loggerFromEnv(this.env),
      });
    });
  }

  get apisetu(): ApiSetuSettings {
    return this.once("apisetu", () => apisetuSettingsFromEnv(this.env));
  }

  get certificates(): CertificatesClient {
    return this.once("certificates", () => {
      const keys = requireApiSetuKeys(this.apisetu);
      return new CertificatesClient({
        endpoint: keys.endpoint,
        endpointSetting: this.settingOf("STACKWARDEN_APISETU_ENDPOINT"),
        apiKey: keys.apiKey,
        clientId: keys.clientId,
        naming: keys.naming,
      });
    });
  }

  get actor(): ActorClients {
    return this.once("actor", () => {
      // With only AZURE_ACCESS_TOKEN and no IMDS endpoint set, IMDS is not asked: outside Azure
      // that would only cost a connect timeout.
      const onVm = !this.env.AZURE_ACCESS_TOKEN?.trim() || !!serviceSetting(this.env, "STACKWARDEN_IMDS_ENDPOINT");
      const imds = onVm
        ? new ImdsClient({
            endpoint: endpointsFromEnv(this.env).imds,
            endpointSetting: this.settingOf("STACKWARDEN_IMDS_ENDPOINT"),
            retry: { maxAttempts: 2 },
          })
        : undefined;
      return { credential: this.credential, imds };
    });
  }

  binaryAnalysis(): Promise<BinaryAnalysisService> {
    if (!this.opening) {
      this.opening = openBinaryAnalysisService(this.env);
      this.opening.catch(() => (this.opening = undefined));
    }
    return this.opening;
  }

  remember<T>(key: string, ttlMs: number, make: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const kept = this.remembered.get(key);
    if (kept && now - kept.at < ttlMs) return kept.value as Promise<T>;
    const value = make();
    const entry = { at: now, value };
    this.remembered.set(key, entry);
    value.catch(() => {
      if (this.remembered.get(key) === entry) this.remembered.delete(key);
    });
    return value;
  }

  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    if (opening) await (await opening.catch(() => undefined))?.close();
  }
}

/** The variables the clients are built from: two environments that agree on them share a set. */
const CLIENT_VARIABLES = /^(STACKWARDEN_|AZURE_|IDENTITY_|MSI_)/;
const shared = new Map<string, ClientSet>();

/**
 * The client set of an environment. Sets are kept per distinct setting, so a long-lived process
 * (the provider plugin, the policy pack, the watcher) keeps one credential and its token cache
 * instead of building them per call.
 */
export function clientSetFromEnv(env: NodeJS.ProcessEnv = process.env): ClientSet {
  const key = Object.keys(env)
    .filter((k) => CLIENT_VARIABLES.test(k))
    .sort()
    .map((k) => `${k}=${env[k]}`)
    .join("\u0000");
  let set = shared.get(key);
  if (!set) {
    set = new EnvClientSet(env);
    shared.set(key, set);
  }
  return set;
}

/** A client set of its own (not shared with other callers of the same environment): a test's, or a run that must not share state. */
export function newClientSet(env: NodeJS.ProcessEnv): ClientSet {
  return new EnvClientSet(env);
}

/**
 * A client set of the emulator at `url` and nothing else (emulatorOnlyEnvironment): Resource Manager
 * and IMDS at the emulator, tokens from its IMDS only, whatever else `base` sets. For writes meant
 * for the emulator alone (`emulator change`), which must never reach a real service.
 */
export function emulatorClientSet(base: NodeJS.ProcessEnv, url: string): ClientSet {
  return new EnvClientSet(emulatorOnlyEnvironment(base, url));
}
