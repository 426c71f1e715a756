import { readFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "undici";
import { ARM_SCOPE } from "../../../src/platform/auth/scopes";
import type { EmulatorOptions } from "../../../src/emulator/server";
import type { SeedDocument } from "../../../src/emulator/seed";
import { silentLogger, type Logger } from "../../../src/platform/http";
import { SqlClient } from "../../../src/services/sql/client";
import type { ArmClientOptions } from "../../../src/platform/arm/arm-client";
import type { DatabaseRef, ElasticPoolRef } from "../../../src/services/sql/types";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

export const SUB = "00000000-0000-0000-0000-000000000000";
export const ESTATE_PATH = join(__dirname, "../../fixtures/sql/estate.yaml");

/** The example estate of test/fixtures/sql/estate.yaml, validated with the real seed schema. */
export function estateSeed(): SeedDocument {
  return seedFromYaml(readFileSync(ESTATE_PATH, "utf8"));
}

export function db(server: string, database: string, resourceGroup = "rg-data", subscriptionId = SUB): DatabaseRef {
  return { subscriptionId, resourceGroup, server, database };
}

export function pool(server: string, elasticPool: string, resourceGroup = "rg-data", subscriptionId = SUB): ElasticPoolRef {
  return { subscriptionId, resourceGroup, server, elasticPool };
}

export interface SqlHarness extends TestEmulator {
  client: SqlClient;
  /** A client with other options against the same emulator. */
  clientWith(opts: Partial<ArmClientOptions>): SqlClient;
  /** A raw ARM call with a valid bearer token: what the emulator sends, untouched by the client. */
  raw(
    method: "GET" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
    query?: string,
  ): Promise<{ status: number; body: unknown; headers: Record<string, unknown> }>;
}

/** Starts an in-process emulator with a seed and a SqlClient bound to it. */
export async function startSql(
  seed: SeedDocument = estateSeed(),
  opts: EmulatorOptions = {},
  logger: Logger = silentLogger,
): Promise<SqlHarness> {
  const t = await startTestEmulator({ seed, ...opts });
  const base: ArmClientOptions = { endpoint: t.url, credential: t.credential, retry: FAST_RETRY, logger };
  const clientWith = (o: Partial<ArmClientOptions>) => new SqlClient({ ...base, ...o });
  return {
    ...t,
    client: clientWith({}),
    clientWith,
    async raw(method, path, body, query = "api-version=2014-04-01") {
      const token = await t.credential.getToken(ARM_SCOPE);
      const res = await request(`${t.url}${path}${query ? `?${query}` : ""}`, {
        method,
        headers: { authorization: `Bearer ${token!.token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    },
  };
}

/** The ARM path of a database (Microsoft.Sql unless another namespace spelling is given). */
export function dbPath(ref: DatabaseRef, ns = "Microsoft.Sql"): string {
  return `/subscriptions/${ref.subscriptionId}/resourceGroups/${ref.resourceGroup}/providers/${ns}/servers/${ref.server}/databases/${ref.database}`;
}

export function poolPath(ref: ElasticPoolRef, ns = "Microsoft.Sql"): string {
  return `/subscriptions/${ref.subscriptionId}/resourceGroups/${ref.resourceGroup}/providers/${ns}/servers/${ref.server}/elasticPools/${ref.elasticPool}`;
}

/** A logger that keeps its lines. */
export function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, warn: (l) => warnings.push(l) };
}
