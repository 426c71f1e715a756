import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorReply } from "../../../src/emulator/kit/emulator-app";
import type { LocalService } from "../../../src/emulator/kit/local-service";
import { ApiError } from "../../../src/platform/http";
import { imdsLocal } from "../../../src/emulator/services/imds/imds-local";
import { BatchAiClient } from "../../../src/services/batchai/client";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { memoryLogger } from "./batchai-harness";

/**
 * A stand-in for a real service that drifted from its spec: each subscription id picks one
 * answer to Workspaces_List, and each experiment one answer to Jobs_ListByExperiment.
 */
const WS = (sub: string, name: string) => `/subscriptions/${sub}/resourceGroups/rg/providers/Microsoft.BatchAI/workspaces/${name}`;
const ANSWERS: Record<string, EmulatorReply> = {
  drift: {
    status: 200,
    body: {
      value: [
        {
          id: WS("drift", "w1"),
          name: "w1",
          type: "Microsoft.BatchAI/workspaces",
          location: "eastus",
          sku: { name: "new" },
          properties: { provisioningState: "migrating", brandNew: true },
        },
      ],
    },
  },
  nulls: {
    status: 200,
    body: {
      value: [
        {
          id: WS("nulls", "w1"),
          name: "w1",
          type: null,
          location: null,
          tags: null,
          properties: { creationTime: null, provisioningState: null },
        },
      ],
      nextLink: null,
    },
  },
  noid: { status: 200, body: { value: [{ name: "w1", type: "Microsoft.BatchAI/workspaces" }] } },
  oddids: {
    status: 200,
    body: {
      value: [
        { id: "", name: "empty" },
        { id: 42, name: "numeric" },
        { id: "workspaces/w3", name: "relative" },
        null,
        "w5",
        { id: WS("oddids", "w6"), name: "w6" },
      ],
    },
  },
  notobject: { status: 200, body: '"just a string"', headers: { "content-type": "application/json" } },
  html: { status: 200, body: "<html><body>Sign in to continue</body></html>", headers: { "content-type": "text/html" } },
  nojson: { status: 200, body: '{"value": [', headers: { "content-type": "application/json" } },
  nullvalue: { status: 200, body: { value: null } },
};

const driftService: LocalService = {
  name: "drift",
  seedSchema: { type: "object" },
  initialState: () => ({}),
  mount(ctx) {
    ctx.arm(
      "GET",
      "/subscriptions/:sub/providers/Microsoft.BatchAI/workspaces",
      ["2018-05-01"],
      (req) => ANSWERS[req.params.sub] ?? { status: 200, body: { value: [] } },
    );
    ctx.arm(
      "GET",
      "/subscriptions/:sub/resourceGroups/:rg/providers/Microsoft.BatchAI/workspaces/:ws/experiments/:exp/jobs",
      ["2018-05-01"],
      (req) => ({
        status: 200,
        body: {
          value: [
            {
              id: `${WS(req.params.sub, req.params.ws)}/experiments/${req.params.exp}/jobs/j1`,
              name: "j1",
              properties: { executionState: req.params.exp },
            },
          ],
        },
      }),
    );
  },
};

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ services: [imdsLocal as LocalService, driftService] });
});
afterAll(() => t.close());

function client(validation?: "all" | "sample" | "off") {
  const logger = memoryLogger();
  return { logger, c: new BatchAiClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY, logger, validation }) };
}

describe("responses that drift from the spec", () => {
  it("unknown properties and enum values are handed on unchanged, with a warning", async () => {
    const { c, logger } = client();
    const [w] = await c.listWorkspaces("drift");
    expect(w).toEqual((ANSWERS.drift.body as { value: unknown[] }).value[0]);
    expect(logger.warnings.join("\n")).toMatch(
      /Workspaces_List: response differs from the published schema: \/properties\/provisioningState must be equal to one of the allowed values/,
    );
    expect(logger.warnings.some((l) => /sku|brandNew/.test(l))).toBe(false);
  });

  it("an unknown enum value warns once, however often it is seen", async () => {
    const { c, logger } = client();
    const ref = { subscriptionId: "s", resourceGroup: "rg", workspace: "w" };
    for (let i = 0; i < 3; i++) expect((await c.listJobs(ref, "paused"))[0].properties?.executionState).toBe("paused");
    expect(logger.warnings.filter((l) => l.includes("Jobs_ListByExperiment") && l.includes("executionState"))).toHaveLength(1);
    expect((await c.listJobs(ref, "running"))[0].properties?.executionState).toBe("running");
  });

  it("null is read as absent: no warning, and the object is untouched", async () => {
    const { c, logger } = client();
    const [w] = await c.listWorkspaces("nulls");
    expect(w.location).toBeNull();
    expect(w.properties?.provisioningState).toBeNull();
    expect(logger.warnings).toEqual([]);
    expect(await c.listWorkspaces("nullvalue")).toEqual([]);
  });

  it("validation: off checks nothing but still keeps (and warns about) a resource without an id", async () => {
    const { c, logger } = client("off");
    await c.listWorkspaces("drift");
    expect(logger.warnings).toEqual([]);
    expect(await c.listWorkspaces("noid")).toEqual([{ name: "w1", type: "Microsoft.BatchAI/workspaces" }]);
  });

  it("a resource without an id is kept as the API returned it, with one warning however often it is read", async () => {
    const { c, logger } = client();
    for (let i = 0; i < 3; i++) expect(await c.listWorkspaces("noid")).toEqual([{ name: "w1", type: "Microsoft.BatchAI/workspaces" }]);
    const lines = logger.warnings.filter((l) => l.includes("has no id"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Workspaces_List: item 0 of the list of .*: a Workspace named 'w1' has no id .*kept as the API returned it/);
  });

  it("odd ids (empty, not a string, not an ARM id) are kept; items that are not objects are skipped; the list is never refused", async () => {
    const { c, logger } = client();
    const got = await c.listWorkspaces("oddids");
    expect(got.map((w) => w.name)).toEqual(["empty", "numeric", "relative", "w6"]);
    expect(got[1]).toEqual({ id: 42, name: "numeric" });
    const w = logger.warnings.join("\n");
    expect(w).toMatch(/named 'empty' has an empty id/);
    expect(w).toMatch(/named 'numeric' has an id that is not a string \(number\)/);
    expect(w).toMatch(/named 'relative' has the id 'workspaces\/w3', which is not an ARM resource id/);
    expect(w).toMatch(/item 3 of page 1 of .* is null, not an object; it was skipped/);
    expect(w).toMatch(/item 4 of page 1 of .* is a string, not an object; it was skipped/);
    expect(w).not.toMatch(/'w6'/);
  });

  it("a body that is not JSON, or not an object, is still refused", async () => {
    for (const sub of ["html", "nojson", "notobject"]) {
      const e = (await client()
        .c.listWorkspaces(sub)
        .catch((x: unknown) => x)) as ApiError;
      expect(e, sub).toBeInstanceOf(ApiError);
      expect(e.code).toBe("InvalidResponse");
      expect(e.message).toMatch(sub === "notobject" ? /no "value" array/ : /JSON/);
    }
  });
});
