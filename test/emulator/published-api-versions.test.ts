import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteInfo } from "../../src/emulator/kit/emulator-app";
import {
  PUBLISHED_NAMESPACES,
  publishedNamespace,
  publishedOperation,
  type PublishedOperation,
} from "../../src/emulator/kit/published-operations";
import { apiVersionOrder, versionHas } from "../../src/emulator/kit/version-shape";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";

/**
 * Issue 40, item 12: the emulator answers every api-version Azure publishes for each ARM operation it
 * serves, and refuses the others as Resource Manager does. The versions are the ones recorded from
 * the specs in specs/api-versions/<namespace>.json (specs/SOURCES.md says where from); each route
 * names its operation, and this test walks every route the emulator registered, so a route added
 * later is held to its own operation's list without a word here (only a new path parameter needs a
 * value below).
 */

const SUB = "00000000-0000-0000-0000-000000000000";
const DEV_ESTATE = join(__dirname, "../../stacks/dev.estate.yaml");

/** Values for each route parameter, from the default estate (stacks/dev.estate.yaml), per namespace. */
const PARAMS: Record<string, Record<string, string>> = {
  "Microsoft.Sql": {
    resourceGroupName: "rg-data",
    serverName: "sql-prod-1",
    databaseName: "customers",
    elasticPoolName: "pool-1",
    serviceTierAdvisorName: "Current",
    transparentDataEncryptionName: "current",
    encryptionProtectorName: "current",
    keyName: "ServiceManaged",
  },
  "Microsoft.KeyVault": {
    resourceGroupName: "rg-security",
    vaultName: "kv-prod-tde",
    // A vault key under vaults/, an HSM key under managedHSMs/ (see paramsOf).
    keyName: "sql-prod-1-tde",
    keyVersion: "6f1c2e4a9b8d4c3e8a7f5b2d1c0e9f8a",
    name: "hsm-prod-tde",
  },
  "Microsoft.Authorization": {
    resourceGroupName: "rg-security",
    namespace: "Microsoft.KeyVault",
    type: "vaults",
    name: "kv-prod-tde",
    childType: "keys",
    childName: "sql-prod-1-tde",
    roleDefinitionId: "e147488a-f6f5-4113-8e2d-b22465e65bf6",
  },
  "Microsoft.BatchAI": {
    resourceGroupName: "rg-ml",
    workspaceName: "ws-vision",
    clusterName: "gpu-nc6",
    fileServerName: "nfs-datasets",
    experimentName: "resnet50",
    jobName: "baseline",
    location: "eastus",
  },
  "Microsoft.Insights": {},
};

function paramsOf(route: RouteInfo, op: PublishedOperation): Record<string, string> {
  const p = { subscriptionId: SUB, ...PARAMS[op.namespace] };
  if (/managedHSMs/i.test(route.path)) Object.assign(p, { keyName: "sql-prod-3-tde", keyVersion: "9d2e7c1b5a4f4e8c9b3a6d0f2e1c7b5a" });
  return p;
}

/** The operations that create and delete databases at run time, walked on a database of their own. */
const DATABASE_WRITES = new Set(["Databases_CreateOrUpdate", "Databases_Delete"]);
const WALKED_DATABASE = "walked";
/** A Databases_CreateOrUpdate body every version takes. */
const NEW_DATABASE = { location: "East US" };

/** The route's path with every parameter filled in, and the query its operation needs besides api-version. */
function concrete(route: RouteInfo, op: PublishedOperation): string {
  const params = paramsOf(route, op);
  const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`${op.operationId} (${route.path}): give :${name} a value in PARAMS["${op.namespace}"]`);
    return encodeURIComponent(v);
  });
  // A database created and deleted at run time has a name of its own: the other routes keep theirs.
  if (DATABASE_WRITES.has(op.operationId)) return `${path.replace(/\/databases\/[^/]+$/, `/databases/${WALKED_DATABASE}`)}?`;
  if (op.operationId === "ActivityLogs_List") return `${path}?$filter=${encodeURIComponent("eventTimestamp ge '2020-01-01T00:00:00Z'")}&`;
  return `${path}?`;
}

let t: TestEmulator;
let token: string;
let routes: { route: RouteInfo; op: PublishedOperation }[];

beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(readFileSync(DEV_ESTATE, "utf8")) });
  token = (await t.credential.getToken("https://management.azure.com/.default"))!.token;
  // The described spelling (`Provider.Sql`) routes the same operation to the same handler: one spelling is walked.
  routes = t.emu
    .routes()
    .filter((r): r is RouteInfo & { operation: PublishedOperation } => r.operation !== undefined && !/\/providers\/Provider\./.test(r.path))
    .map((r) => ({ route: r, op: r.operation }));
});
afterAll(() => t?.close());

async function send(method: string, url: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${t.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A PUT of the TDE configuration that changes nothing: its current status, in the version's own field. */
async function unchangedTdeBody(path: string, version: string): Promise<unknown> {
  const current = (await send("GET", `${path}api-version=${version}`)).body as { properties: { status?: string; state?: string } };
  const field = versionHas("Microsoft.Sql", "Microsoft.Sql/servers/databases/transparentDataEncryption", version, "properties.state")
    ? "state"
    : "status";
  return { properties: { [field]: current.properties[field] } };
}

describe("every ARM route names a published operation", () => {
  it("each ARM route of every namespace the specs record is registered with its operation, and each recorded operation is served", () => {
    const served = new Set(routes.map((r) => `${r.op.namespace} ${r.op.operationId}`));
    for (const ns of PUBLISHED_NAMESPACES) {
      for (const operationId of Object.keys(publishedNamespace(ns).operations)) {
        expect(served, `${ns} ${operationId} is recorded but no route serves it`).toContain(`${ns} ${operationId}`);
      }
    }
    // The namespaces' routes all name their operation (the only ARM routes without one are services registered at run time).
    const unnamed = t.emu
      .routes()
      .filter((r) => !r.operation && /\/providers\/(Microsoft|Provider)\.(Sql|KeyVault|Authorization|Insights|BatchAI)\//i.test(r.path));
    expect(unnamed).toEqual([]);
    // Each `Provider.*` route names the operation of its `Microsoft.*` twin.
    for (const r of t.emu.routes().filter((x) => /\/providers\/Provider\./.test(x.path))) {
      const twin = routes.find(
        (x) => x.route.method === r.method && x.route.path === r.path.replace("/providers/Provider.", "/providers/Microsoft."),
      );
      expect(r.operation, r.path).toEqual(twin?.op);
    }
  });

  it("the recorded versions include those Azure's Go SDK armsql v1.2.0 sends by default (the issue's two among them)", () => {
    // From armsql@v1.2.0's *_client.go (reqQP.Set("api-version", …)), the newest armsql on the Go module proxy.
    const goDefaults: Record<string, string> = {
      Servers_Get: "2021-02-01-preview",
      Databases_Get: "2021-05-01-preview",
      Databases_ListByServer: "2021-05-01-preview",
      TransparentDataEncryptions_Get: "2021-02-01-preview",
      TransparentDataEncryptions_CreateOrUpdate: "2021-02-01-preview",
      EncryptionProtectors_Get: "2020-11-01-preview",
      ServerKeys_ListByServer: "2020-11-01-preview",
      ElasticPoolActivities_ListByElasticPool: "2014-04-01",
      ElasticPoolDatabaseActivities_ListByElasticPool: "2014-04-01",
    };
    for (const [operationId, version] of Object.entries(goDefaults)) {
      expect(publishedOperation("Microsoft.Sql", operationId).apiVersions, operationId).toContain(version);
    }
  });
});

describe("each operation answers every published api-version and refuses the others", () => {
  it("every recorded version succeeds on every route", async () => {
    const failures: string[] = [];
    for (const { route, op } of routes) {
      const path = concrete(route, op);
      const ask = async (version: string) => {
        // A delete needs a database to delete (created at the first version); a create answers 201, then 200.
        if (op.operationId === "Databases_Delete") await send("PUT", `${path}api-version=2014-04-01`, NEW_DATABASE);
        const body =
          op.operationId === "Databases_CreateOrUpdate"
            ? NEW_DATABASE
            : route.method === "PUT"
              ? await unchangedTdeBody(path, version)
              : undefined;
        const res = await send(route.method, `${path}api-version=${version}`, body);
        const created = op.operationId === "Databases_CreateOrUpdate" && res.status === 201;
        if (res.status !== 200 && !created)
          failures.push(`${route.method} ${op.operationId} ${version} (${route.path}): ${res.status} ${JSON.stringify(res.body)}`);
      };
      if (route.method === "GET") await Promise.all(op.apiVersions.map(ask));
      else for (const version of op.apiVersions) await ask(version);
    }
    expect(failures).toEqual([]);
  });

  it("a version the operation is not published in gets 400 InvalidApiVersionParameter, naming the published ones", async () => {
    const failures: string[] = [];
    for (const { route, op } of routes) {
      const path = concrete(route, op);
      // The namespace's other versions (published for a sibling operation, not this one), and one never published.
      const others = new Set(Object.values(publishedNamespace(op.namespace).operations).flatMap((o) => o.versions));
      const unpublished = [...others].filter((v) => !op.apiVersions.includes(v)).concat("2013-01-01");
      await Promise.all(
        unpublished.map(async (version) => {
          const res = await send(route.method, `${path}api-version=${version}`, route.method === "PUT" ? { properties: {} } : undefined);
          const error = (res.body as { error?: { code?: string; message?: string } } | undefined)?.error;
          if (res.status !== 400 || error?.code !== "InvalidApiVersionParameter" || !error.message?.includes(`'${op.apiVersions.at(-1)}'`))
            failures.push(`${route.method} ${op.operationId} ${version}: ${res.status} ${JSON.stringify(res.body)}`);
        }),
      );
    }
    expect(failures).toEqual([]);
  });
});

describe("each version answers in its own shape", () => {
  it("no answer carries a property its version does not have (walked over every route and version)", async () => {
    const failures: string[] = [];
    for (const { route, op } of routes) {
      if (!op.resourceType || route.method !== "GET") continue;
      const path = concrete(route, op);
      await Promise.all(
        op.apiVersions.map(async (version) => {
          const body = (await send("GET", `${path}api-version=${version}`)).body as { value?: unknown[] };
          const items = Array.isArray(body.value) ? body.value : [body];
          for (const item of items) {
            for (const p of propertyPaths(item)) {
              if (!versionHas(op.namespace, op.resourceType!, version, p)) failures.push(`${op.operationId} ${version}: ${p}`);
            }
          }
        }),
      );
    }
    expect(failures).toEqual([]);
  });

  it("Servers_Get: 2014-04-01 has no identity, 2021-02-01-preview (armsql's default) gains restrictOutboundNetworkAccess", async () => {
    const path = `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-prod-1`;
    const old = (await send("GET", `${path}?api-version=2014-04-01`)).body as Record<string, Record<string, unknown>>;
    expect(old).not.toHaveProperty("identity");
    expect(old.properties).toMatchObject({ version: "12.0", state: "Ready", fullyQualifiedDomainName: "sql-prod-1.database.windows.net" });
    expect(old.properties).not.toHaveProperty("publicNetworkAccess");
    const go = (await send("GET", `${path}?api-version=2021-02-01-preview`)).body as Record<string, Record<string, unknown>>;
    expect(go.identity).toMatchObject({ type: expect.stringMatching(/Assigned/) });
    expect(go.properties).toMatchObject({ publicNetworkAccess: "Enabled", restrictOutboundNetworkAccess: "Disabled" });
    const before = (await send("GET", `${path}?api-version=2020-11-01-preview`)).body as Record<string, Record<string, unknown>>;
    expect(before.properties).not.toHaveProperty("restrictOutboundNetworkAccess");
  });

  it("TDE: 2014-04-01 speaks `status` (with a location), the later versions `state` (without); a PUT takes its version's field", async () => {
    const path = `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-prod-2/databases/inventory/transparentDataEncryption/current`;
    const old = (await send("GET", `${path}?api-version=2014-04-01`)).body as Record<string, unknown>;
    expect(old).toMatchObject({ location: expect.any(String), properties: { status: expect.stringMatching(/^(Enabled|Disabled)$/) } });
    const now = (await send("GET", `${path}?api-version=2021-02-01-preview`)).body as Record<string, unknown>;
    expect(now).not.toHaveProperty("location");
    expect(now.properties).toEqual({ state: (old.properties as { status: string }).status });
    const wrongField = await send("PUT", `${path}?api-version=2021-02-01-preview`, { properties: { status: "Enabled" } });
    expect(wrongField).toMatchObject({ status: 400, body: { error: { code: "MissingRequiredParameter" } } });
    const put = await send("PUT", `${path}?api-version=2021-02-01-preview`, { properties: { state: "Enabled" } });
    expect(put).toMatchObject({ status: 200, body: { properties: { state: "Enabled" } } });
    expect(((await send("GET", `${path}?api-version=2014-04-01`)).body as { properties: unknown }).properties).toEqual({
      status: "Enabled",
    });
  });

  it("Databases_Get at 2014-04-01 names its edition, objective and pool; 2017-03-01-preview on carry a sku and the pool's id", async () => {
    const path = `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-prod-1/databases`;
    const pooled = (
      (await send("GET", `${path}?api-version=2014-04-01`)).body as { value: { name: string; properties: Record<string, unknown> }[] }
    ).value.find((d) => typeof d.properties.elasticPoolName === "string");
    expect(pooled?.properties).toMatchObject({
      edition: expect.any(String),
      serviceLevelObjective: "ElasticPool",
      elasticPoolName: "pool-1",
    });
    expect(pooled?.properties).not.toHaveProperty("elasticPoolId");
    const later = (await send("GET", `${path}/${pooled!.name}?api-version=2017-03-01-preview`)).body as Record<
      string,
      Record<string, unknown>
    >;
    expect(later.sku).toMatchObject({ name: "ElasticPool" });
    expect(later.properties.elasticPoolId).toMatch(/\/elasticPools\/pool-1$/);
    expect(later.properties).not.toHaveProperty("edition");
  });

  it("the recorded versions are in api-version order and each range names a recorded version", () => {
    for (const ns of PUBLISHED_NAMESPACES) {
      const f = publishedNamespace(ns);
      for (const [id, op] of Object.entries(f.operations)) {
        const sorted = [...op.versions].sort((a, b) => apiVersionOrder(a).localeCompare(apiVersionOrder(b)));
        expect(op.versions, `${ns} ${id}`).toEqual(sorted);
        if (op.resourceType) expect(Object.keys(f.resourceTypes), `${ns} ${id}`).toContain(op.resourceType);
      }
    }
  });
});

/** Every property path of a JSON value, as specs/api-versions records them (`properties.keys`, `properties.permissions.[].actions`); maps stop at their key. */
function propertyPaths(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) return value.flatMap((v) => propertyPaths(v, `${prefix}[].`));
  return Object.entries(value).flatMap(([k, v]) => {
    const here = `${prefix}${k}`;
    // Maps keyed by data (tags, user-assigned identities by id, database keys by URI) are recorded as one leaf.
    if (/^(tags|identity\.userAssignedIdentities|properties\.keys)$/.test(here)) return [here];
    return [here, ...propertyPaths(v, `${here}.`)];
  });
}
