import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/platform/http";
import { readSpec, responseValidator } from "../../../src/platform/schemas/swagger-schemas";
import { BATCHAI_API_VERSION, BATCHAI_SPEC, type BatchAiOperationId, type WorkspaceRef } from "../../../src/services/batchai/types";
import { SUB, type BatchEmulator, fixtureSeed, ids, memoryLogger, recordingDispatcher, startBatchEmulator } from "./batchai-harness";

const VISION: WorkspaceRef = { subscriptionId: SUB, resourceGroup: "rg-ml", workspace: "ws-vision" };
const NS = "Microsoft.BatchAI";
const WS_PATH = `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/${NS}/workspaces/ws-vision`;

/** One GET per read operation of the spec, against the estate fixture. */
const OPERATIONS: { op: BatchAiOperationId; path: string; list: boolean }[] = [
  { op: "Operations_List", path: `/providers/${NS}/operations`, list: true },
  { op: "Usages_List", path: `/subscriptions/${SUB}/providers/${NS}/locations/eastus/usages`, list: true },
  { op: "Workspaces_List", path: `/subscriptions/${SUB}/providers/${NS}/workspaces`, list: true },
  { op: "Workspaces_ListByResourceGroup", path: `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/${NS}/workspaces`, list: true },
  { op: "Workspaces_Get", path: WS_PATH, list: false },
  { op: "Clusters_ListByWorkspace", path: `${WS_PATH}/clusters`, list: true },
  { op: "Clusters_Get", path: `${WS_PATH}/clusters/gpu-nc24-lowpri`, list: false },
  { op: "Experiments_ListByWorkspace", path: `${WS_PATH}/experiments`, list: true },
  { op: "Experiments_Get", path: `${WS_PATH}/experiments/resnet50`, list: false },
  { op: "FileServers_ListByWorkspace", path: `${WS_PATH}/fileServers`, list: true },
  { op: "FileServers_Get", path: `${WS_PATH}/fileServers/nfs-datasets`, list: false },
  { op: "Jobs_ListByExperiment", path: `${WS_PATH}/experiments/resnet50/jobs`, list: true },
  { op: "Jobs_Get", path: `${WS_PATH}/experiments/resnet50/jobs/lr-sweep-1`, list: false },
];

let t: BatchEmulator;
beforeAll(async () => {
  // Page size 2, so that every list of the estate spans pages and nextLink is exercised.
  t = await startBatchEmulator(fixtureSeed("estate.yaml"), { settings: { pageSize: 2 } });
});
afterAll(() => t.close());

describe("responses against the published schema", () => {
  it.each(OPERATIONS)("$op: every page validates", async ({ op, path, list }) => {
    const validate = responseValidator(BATCHAI_SPEC, op);
    const http = t.raw();
    let next: string | undefined = path;
    let pages = 0;
    while (next) {
      const body: { nextLink?: string; value?: unknown[] } = await http.json({ operation: op, method: "GET", path: next });
      const check = validate(body);
      expect(check.errors, `${op} page ${pages + 1}`).toEqual([]);
      pages += 1;
      next = list ? body.nextLink : undefined;
      if (list) expect(Array.isArray(body.value)).toBe(true);
    }
    expect(pages).toBeGreaterThan(0);
  });

  it("the client's answers are the API's objects, unchanged, with no drift warning", async () => {
    const logger = memoryLogger();
    const c = t.client({ logger });
    const http = t.raw();
    const answers: Record<string, unknown> = {
      Operations_List: await c.listOperations(),
      Usages_List: await c.listUsages(SUB, "eastus"),
      Workspaces_List: await c.listWorkspaces(SUB),
      Workspaces_ListByResourceGroup: await c.listWorkspacesByResourceGroup(SUB, "rg-ml"),
      Workspaces_Get: await c.getWorkspace(VISION),
      Clusters_ListByWorkspace: await c.listClusters(VISION),
      Clusters_Get: await c.getCluster(VISION, "gpu-nc24-lowpri"),
      Experiments_ListByWorkspace: await c.listExperiments(VISION),
      Experiments_Get: await c.getExperiment(VISION, "resnet50"),
      FileServers_ListByWorkspace: await c.listFileServers(VISION),
      FileServers_Get: await c.getFileServer(VISION, "nfs-datasets"),
      Jobs_ListByExperiment: await c.listJobs(VISION, "resnet50"),
      Jobs_Get: await c.getJob(VISION, "resnet50", "lr-sweep-1"),
    };
    for (const { op, path, list } of OPERATIONS) {
      const expected = list
        ? await http.list({ operation: op, method: "GET", path })
        : await http.json({ operation: op, method: "GET", path });
      expect(answers[op], op).toEqual(expected);
    }
    expect(logger.warnings).toEqual([]);
  });

  it("error bodies validate against the `default` response (CloudError) where the spec declares one", async () => {
    const http = t.raw();
    const missing: [BatchAiOperationId, string][] = [
      ["Workspaces_ListByResourceGroup", `/subscriptions/${SUB}/resourceGroups/rg-nope/providers/${NS}/workspaces`],
      ["Workspaces_Get", `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/${NS}/workspaces/ws-nope`],
      ["Clusters_ListByWorkspace", `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/${NS}/workspaces/ws-nope/clusters`],
      ["Clusters_Get", `${WS_PATH}/clusters/nope`],
      ["Experiments_ListByWorkspace", `/subscriptions/${SUB}/resourceGroups/rg-nope/providers/${NS}/workspaces/ws-vision/experiments`],
      ["Experiments_Get", `${WS_PATH}/experiments/nope`],
      ["FileServers_ListByWorkspace", `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/${NS}/workspaces/ws-nope/fileServers`],
      ["FileServers_Get", `${WS_PATH}/fileServers/nope`],
      ["Jobs_ListByExperiment", `${WS_PATH}/experiments/nope/jobs`],
      ["Jobs_Get", `${WS_PATH}/experiments/resnet50/jobs/nope`],
      ["Workspaces_List", `/subscriptions/${SUB}/providers/${NS}/workspaces?api-version=1999-01-01`],
    ];
    for (const [op, path] of missing) {
      const res = await http.request<unknown>({ operation: op, method: "GET", path, okStatuses: [400, 404] });
      expect([400, 404], op).toContain(res.status);
      expect(responseValidator(BATCHAI_SPEC, op, "default")(res.body).errors, op).toEqual([]);
      expect((res.body as { error: { code: string } }).error.code).toMatch(
        /^(ResourceNotFound|ResourceGroupNotFound|InvalidApiVersionParameter)$/,
      );
    }
  });
});

describe("requests", () => {
  it("match the spec: path templates, api-version 2018-05-01, no other query parameter", async () => {
    const rec = recordingDispatcher();
    try {
      const c = t.client({ dispatcher: rec.dispatcher });
      await c.listOperations();
      await c.listUsages(SUB, "eastus");
      await c.listWorkspaces(SUB);
      await c.listWorkspacesByResourceGroup(SUB, "rg-ml");
      await c.getWorkspace(VISION);
      await c.listClusters(VISION);
      await c.getCluster(VISION, "gpu-nc6");
      await c.listExperiments(VISION);
      await c.getExperiment(VISION, "resnet50");
      await c.listFileServers(VISION);
      await c.getFileServer(VISION, "nfs-datasets");
      await c.listJobs(VISION, "resnet50");
      await c.getJob(VISION, "resnet50", "baseline");
    } finally {
      await rec.close();
    }
    const templates = specTemplates();
    const seen = new Set<string>();
    for (const r of rec.requests) {
      expect(r.method).toBe("GET");
      const u = new URL(r.path, "http://x");
      expect(u.searchParams.get("api-version")).toBe(BATCHAI_API_VERSION);
      for (const k of u.searchParams.keys()) expect(["api-version", "$skiptoken"]).toContain(k);
      const match = templates.find((tpl) => tpl.re.test(u.pathname));
      expect(match, u.pathname).toBeDefined();
      seen.add(match!.op);
    }
    expect([...seen].sort()).toEqual(OPERATIONS.map((o) => o.op).sort());
  });
});

describe("not found", () => {
  it("a workspace that does not exist: ApiError 404 ResourceNotFound naming it", async () => {
    const c = t.client();
    const ref = { ...VISION, workspace: "ws-missing" };
    for (const call of [
      () => c.getWorkspace(ref),
      () => c.listClusters(ref),
      () => c.listExperiments(ref),
      () => c.listFileServers(ref),
      () => c.listJobs(ref, "resnet50"),
    ]) {
      const e = await call().then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(ApiError);
      const err = e as ApiError;
      expect(err.status).toBe(404);
      expect(err.code).toBe("ResourceNotFound");
      expect(err.message).toContain("ws-missing");
      expect(err.message).toContain("rg-ml");
    }
  });

  it("a resource group that does not exist: ResourceGroupNotFound naming it", async () => {
    const e = (await t
      .client()
      .listWorkspacesByResourceGroup(SUB, "rg-missing")
      .catch((x: unknown) => x)) as ApiError;
    expect(e.code).toBe("ResourceGroupNotFound");
    expect(e.message).toContain("rg-missing");
  });

  it("a 404 whose message names nothing is restated to name the workspace", async () => {
    // A bare gateway 404: the emulator's own messages always name the resource, so use a path it does not route.
    const silent = t.client({ endpoint: `${t.url}/unrouted` });
    const e = (await silent.listClusters({ ...VISION, workspace: "ws-ghost" }).catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(404);
    expect(e.message).toContain("Batch AI workspace 'ws-ghost' (resource group 'rg-ml'");
    expect(e.operation).toBe("Clusters_ListByWorkspace");
  });

  it("a missing child names the child", async () => {
    const e = (await t
      .client()
      .getCluster(VISION, "no-such-cluster")
      .catch((x: unknown) => x)) as ApiError;
    expect(e.status).toBe(404);
    expect(e.message).toContain("no-such-cluster");
  });
});

describe("namespaces", () => {
  it("naming: described puts Provider.BatchAI in paths; the emulator answers in that spelling", async () => {
    const rec = recordingDispatcher();
    try {
      const c = t.client({ naming: "described", dispatcher: rec.dispatcher });
      const list = await c.listWorkspaces(SUB);
      expect(list.length).toBe(3);
      for (const w of list) {
        expect(w.id).toContain("/providers/Provider.BatchAI/workspaces/");
        expect(w.type).toBe("Provider.BatchAI/workspaces");
      }
      const jobs = await c.listJobs(VISION, "resnet50");
      expect(jobs.map((j) => j.name)).toEqual(["baseline", "lr-sweep-1", "lr-sweep-2", "lr-sweep-3", "lr-sweep-4"]);
      const ops = await c.listOperations();
      expect(ops.map((o) => o.name)).toContain("Provider.BatchAI/workspaces/read");
      for (const r of rec.requests) expect(r.path).toContain("/providers/Provider.BatchAI/");
    } finally {
      await rec.close();
    }
  });

  it("a lower-case namespace is matched, and ids come back in ARM's canonical spelling", async () => {
    const http = t.raw();
    const body = await http.json<{ value: { id: string }[] }>({
      operation: "Workspaces_ListByResourceGroup",
      method: "GET",
      path: `/subscriptions/${SUB}/resourcegroups/RG-ML/providers/microsoft.batchai/workspaces?maxresults=10`,
    });
    expect(body.value.map((w) => w.id)).toEqual([
      `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/Microsoft.BatchAI/workspaces/ws-vision`,
      `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/Microsoft.BatchAI/workspaces/ws-nlp`,
    ]);
    const job = await http.json<{ id: string }>({
      operation: "Jobs_Get",
      method: "GET",
      path: `${WS_PATH.toLowerCase()}/experiments/RESNET50/jobs/BASELINE`,
    });
    expect(job.id).toBe(`${WS_PATH}/experiments/resnet50/jobs/baseline`);
  });
});

describe("ARM front door", () => {
  it("requires and checks api-version, and requires a bearer token", async () => {
    const path = `/subscriptions/${SUB}/providers/${NS}/workspaces`;
    const missing = await fetch(`${t.url}${path}`, {
      headers: { authorization: `Bearer ${(await t.credential.getToken(["https://management.azure.com/.default"]))!.token}` },
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("MissingApiVersionParameter");
    const wrong = await t
      .raw()
      .request({ operation: "Workspaces_List", method: "GET", path, query: { "api-version": "2018-03-01" }, okStatuses: [400] });
    expect((wrong.body as { error: { code: string; message: string } }).error.code).toBe("InvalidApiVersionParameter");
    const anonymous = await fetch(`${t.url}${path}?api-version=${BATCHAI_API_VERSION}`);
    expect(anonymous.status).toBe(401);
  });

  it("refuses a maxresults outside 1-1000 and honours one inside", async () => {
    const http = t.raw();
    const bad = await http.request({
      operation: "Jobs_ListByExperiment",
      method: "GET",
      path: `${WS_PATH}/experiments/detection/jobs`,
      query: { maxresults: 0 },
      okStatuses: [400],
    });
    expect((bad.body as { error: { code: string } }).error.code).toBe("InvalidParameter");
    const one = await http.json<{ value: unknown[]; nextLink: string }>({
      operation: "Jobs_ListByExperiment",
      method: "GET",
      path: `${WS_PATH}/experiments/detection/jobs`,
      query: { maxresults: 1 },
    });
    expect(one.value).toHaveLength(1);
    expect(new URL(one.nextLink).searchParams.get("maxresults")).toBe("1");
  });
});

describe("the estate as served", () => {
  it("clusters carry allocation state, node counts, VM size and scale settings from the seed", async () => {
    const [nc6, lowpri] = await t.client().listClusters(VISION);
    expect(nc6.properties).toMatchObject({
      vmSize: "STANDARD_NC6",
      allocationState: "steady",
      currentNodeCount: 3,
      nodeStateCounts: { idleNodeCount: 1, runningNodeCount: 2, preparingNodeCount: 0, unusableNodeCount: 0, leavingNodeCount: 0 },
      scaleSettings: { manual: { targetNodeCount: 3, nodeDeallocationOption: "requeue" } },
    });
    expect(lowpri.properties).toMatchObject({
      vmPriority: "lowpriority",
      allocationState: "resizing",
      scaleSettings: { autoScale: { maximumNodeCount: 8 } },
    });
    expect(lowpri.properties?.subnet?.id).toMatch(/virtualNetworks\/vnet-ml\/subnets\/batch$/);
  });

  it("jobs carry their execution state and, once started or finished, their execution info", async () => {
    const jobs = await t.client().listJobs(VISION, "resnet50");
    const byName = Object.fromEntries(jobs.map((j) => [j.name, j.properties!]));
    expect(byName.baseline).toMatchObject({
      executionState: "succeeded",
      toolType: "tensorflow",
      nodeCount: 2,
      executionInfo: { exitCode: 0 },
    });
    expect(byName["lr-sweep-1"]).toMatchObject({ executionState: "failed", executionInfo: { exitCode: 137 } });
    expect(byName["lr-sweep-1"].cluster?.id).toBe(`${WS_PATH}/clusters/gpu-nc6`);
    expect(byName["lr-sweep-2"].executionInfo?.endTime).toBeUndefined();
    expect(byName["lr-sweep-3"].executionInfo).toBeUndefined();
    expect(byName["lr-sweep-4"].horovodSettings).toEqual({ pythonScriptFilePath: "$AZ_BATCHAI_INPUT_SCRIPTS/hvd.py" });
  });

  it("usages carry name, unit, current value and limit; unseeded locations list none", async () => {
    const c = t.client();
    const east = await c.listUsages(SUB, "EastUS");
    expect(east[0]).toEqual({
      unit: "Count",
      currentValue: 92,
      limit: 100,
      name: { value: "cores", localizedValue: "Total Regional Cores" },
    });
    expect(east).toHaveLength(4);
    expect(await c.listUsages(SUB, "japaneast")).toEqual([]);
  });

  it("operations are the spec's operation set in ARM's naming", async () => {
    const ops = await t.client().listOperations();
    const names = ops.map((o) => o.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of [
      "operations/read",
      "locations/usages/read",
      "workspaces/read",
      "workspaces/write",
      "workspaces/delete",
      "workspaces/clusters/read",
      "workspaces/experiments/jobs/read",
      "workspaces/experiments/jobs/terminate/action",
      "workspaces/fileservers/read",
    ]) {
      expect(names).toContain(`${NS}/${n}`);
    }
    for (const o of ops) expect(o.display?.description).toBeTruthy();
  });

  it("an empty resource group lists no workspace; an empty experiment lists no job", async () => {
    const c = t.client();
    expect(await c.listWorkspacesByResourceGroup(SUB, "rg-empty")).toEqual([]);
    expect(await c.listJobs(VISION, "empty-experiment")).toEqual([]);
    expect(ids(await c.listWorkspaces("11111111-1111-1111-1111-111111111111"))).toEqual([]);
  });

  it("jobPages yields the same jobs as listJobs, page by page", async () => {
    const c = t.client();
    const seen: string[] = [];
    for await (const page of c.jobPages(VISION, "detection")) for (const j of page) seen.push(j.name!);
    expect(seen).toEqual((await c.listJobs(VISION, "detection")).map((j) => j.name));
    expect(seen).toHaveLength(7);
  });

  it("an aborted signal stops a listing", async () => {
    const ac = new AbortController();
    ac.abort();
    const e = (await t
      .client()
      .listJobs(VISION, "detection", ac.signal)
      .catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(Error);
  });
});

/** Each GET operation of the spec as a path regex (parameters match one segment). */
function specTemplates(): { op: string; re: RegExp }[] {
  const doc = readSpec(BATCHAI_SPEC) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const out: { op: string; re: RegExp }[] = [];
  for (const [p, methods] of Object.entries(doc.paths)) {
    const op = methods.get?.operationId;
    if (!op) continue;
    const re = new RegExp(
      `^${p
        .split(/\{[^}]+\}/)
        .map((s) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))
        .join("[^/]+")}$`,
    );
    out.push({ op, re });
  }
  return out;
}
