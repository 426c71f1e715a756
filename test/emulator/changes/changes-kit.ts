import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import type { EmulatorOptions } from "../../../src/emulator/server";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

export const SUB = "00000000-0000-0000-0000-000000000000";
export const SERVER_ID = `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-1`;
export const ARM_SCOPE = "https://management.azure.com/.default";

/** A small estate: one server with two databases whose TDE scans end at once. */
export const CHANGES_SEED = `
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 0
  servers:
    - name: sql-1
      resourceGroup: rg-data
      location: East US
      databases:
        - name: orders
          transparentDataEncryption: Disabled
        - name: customers
          transparentDataEncryption: Disabled
`;

export async function startChangesEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  return startTestEmulator({ seed: seedFromYaml(CHANGES_SEED), ...opts });
}

export function tdePath(database: string): string {
  return `${SERVER_ID}/databases/${database}/transparentDataEncryption/current`;
}

/** A token for Resource Manager from the emulator's IMDS. */
export async function armToken(t: TestEmulator): Promise<string> {
  const token = await t.credential.getToken(ARM_SCOPE);
  if (!token) throw new Error("no token from the emulator's IMDS");
  return token.token;
}

/** A raw ARM request with the emulator's token. */
export async function arm(
  t: TestEmulator,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const sep = path.includes("?") ? "&" : "?";
  const res = await fetch(`${t.url}${path}${path.includes("api-version") ? "" : `${sep}api-version=2014-04-01`}`, {
    method,
    headers: { authorization: `Bearer ${await armToken(t)}`, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Sets a database's TDE status through the emulator's Resource Manager. */
export function putTde(t: TestEmulator, database: string, status: "Enabled" | "Disabled", headers: Record<string, string> = {}) {
  return arm(t, "PUT", tdePath(database), { properties: { status } }, headers);
}

/** A validator of one definition of a shipped Swagger spec (its local `#/definitions` only). */
export function specDefinition(specPath: string, name: string): (data: unknown) => string[] {
  const doc = JSON.parse(readFileSync(join(PROJECT_ROOT, "specs", specPath), "utf8")) as { definitions: Record<string, unknown> };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile({ definitions: doc.definitions, $ref: `#/definitions/${name}` });
  return (data) => (validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? e.keyword}`));
}

/** A user's token from the admin route (`POST /_emulator/user-token`), as the Authorization header to send. */
export async function userAuthorization(t: TestEmulator, upn: string, name?: string): Promise<Record<string, string>> {
  const res = await fetch(`${t.url}/_emulator/user-token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ upn, name }),
  });
  if (res.status !== 200) throw new Error(`user-token answered ${res.status}`);
  return { authorization: `Bearer ${((await res.json()) as { access_token: string }).access_token}` };
}
