import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, request, type Dispatcher } from "undici";
import { ARM_SCOPE } from "../../../src/platform/auth/scopes";
import type { ArmClientOptions } from "../../../src/platform/arm/arm-client";
import { composeRetry, type Logger } from "../../../src/platform/http";
import type { EmulatorOptions } from "../../../src/emulator/server";
import type { SeedDocument } from "../../../src/emulator/seed";
import { KeyVaultClient } from "../../../src/services/keyvault/client";
import { SqlClient } from "../../../src/services/sql/client";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

export const SUB = "00000000-0000-0000-0000-000000000000";
export const KEY_CUSTODY_ESTATE = join(__dirname, "../../fixtures/estates/key-custody.estate.yaml");
export const DEV_ESTATE = join(__dirname, "../../../stacks/dev.estate.yaml");

/** An estate file through the real seed validation (relative times resolved now). */
export function estate(path: string = KEY_CUSTODY_ESTATE): SeedDocument {
  return seedFromYaml(readFileSync(path, "utf8"));
}

/** A logger that keeps its warnings. */
export function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, warn: (l) => warnings.push(l) };
}

/** A dispatcher that records every request it sends (method and path with query), retry interceptor on top. */
export function recordingDispatcher(): { dispatcher: Dispatcher; sent: string[]; close(): Promise<void> } {
  const sent: string[] = [];
  const agent = new Agent({ keepAliveTimeout: 1_000 });
  const record: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
    sent.push(`${String(opts.method)} ${String(opts.path)}`);
    return dispatch(opts, handler);
  };
  return { dispatcher: composeRetry(agent.compose(record)), sent, close: () => agent.close() };
}

export interface RawAnswer {
  status: number;
  body: unknown;
}

export interface KeyCustodyHarness extends TestEmulator {
  sql: SqlClient;
  keyVault: KeyVaultClient;
  logger: Logger & { warnings: string[] };
  options(extra?: Partial<ArmClientOptions>): ArmClientOptions;
  /** A GET with a valid token, untouched by any client: what the emulator answers. */
  get(path: string, apiVersion?: string): Promise<RawAnswer>;
  /** The object id (`oid`) of the identity the emulator's IMDS hands out. */
  objectId(): Promise<string>;
}

/** Starts an in-process emulator with an estate and binds a SqlClient and a KeyVaultClient to it. */
export async function startKeyCustody(seed: SeedDocument = estate(), opts: EmulatorOptions = {}): Promise<KeyCustodyHarness> {
  const t = await startTestEmulator({ seed, ...opts });
  const logger = recordingLogger();
  const options = (extra: Partial<ArmClientOptions> = {}): ArmClientOptions => ({
    endpoint: t.url,
    credential: t.credential,
    retry: FAST_RETRY,
    logger,
    validation: "all",
    ...extra,
  });
  const token = async () => (await t.credential.getToken(ARM_SCOPE))!.token;
  return {
    ...t,
    sql: new SqlClient(options()),
    keyVault: new KeyVaultClient(options()),
    logger,
    options,
    async get(path, apiVersion) {
      const query = apiVersion === undefined ? "" : `${path.includes("?") ? "&" : "?"}api-version=${apiVersion}`;
      const res = await request(`${t.url}${path}${query}`, { headers: { authorization: `Bearer ${await token()}` } });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
    },
    async objectId() {
      const payload = (await token()).split(".")[1];
      return (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { oid: string }).oid;
    },
  };
}

/** `/subscriptions/S/resourceGroups/G/providers/Microsoft.KeyVault/vaults/V` */
export function vaultPath(vault: string, resourceGroup = "rg-kc-keys", subscriptionId = SUB): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.KeyVault/vaults/${vault}`;
}

/** `/subscriptions/S/resourceGroups/G/providers/Microsoft.Sql/servers/V` */
export function serverPath(server: string, resourceGroup = "rg-kc-data", subscriptionId = SUB, ns = "Microsoft.Sql"): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/${ns}/servers/${server}`;
}

/** A server of the key-custody estate. */
export function server(name: string, resourceGroup = "rg-kc-data") {
  return { subscriptionId: SUB, resourceGroup, server: name };
}

/** A vault of the key-custody estate. */
export function vault(name: string, resourceGroup = "rg-kc-keys") {
  return { subscriptionId: SUB, resourceGroup, vault: name };
}

/** A key of a vault of the key-custody estate. */
export function key(vaultName: string, keyName: string, resourceGroup = "rg-kc-keys") {
  return { ...vault(vaultName, resourceGroup), key: keyName };
}
