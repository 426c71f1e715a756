import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTde } from "../../../src/interfaces/pulumi/tde-resource";
import { refreshDataSource } from "../../../src/interfaces/pulumi/data-source-resource";
import { batchWorkspace } from "../../../src/domain/facts/batch-objects";
import { SqlClient } from "../../../src/services/sql/client";
import { ArmOperations } from "../../../src/platform/arm/arm-operations";
import { ARM_READS, type ArmReadTable } from "../../../src/services/arm-reads";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

const SUB = "00000000-0000-0000-0000-000000000000";

describe("refresh of a resource deleted in the cloud", () => {
  let t: TestEmulator;
  let sql: SqlClient;
  let reads: ArmOperations<ArmReadTable>;
  beforeAll(async () => {
    t = await startTestEmulator({
      seed: seedFromYaml(`
sql:
  servers:
    - { name: s1, resourceGroup: rg, databases: [{ name: kept, transparentDataEncryption: Enabled }] }
batchai:
  workspaces:
    - { resourceGroup: rg-ml, name: ws1, location: eastus }
`),
    });
    const opts = { endpoint: t.url, credential: t.credential, retry: FAST_RETRY };
    sql = new SqlClient(opts);
    reads = new ArmOperations(opts, ARM_READS);
  });
  afterAll(() => t.close());

  it("reads a database that exists", async () => {
    const r = await readTde(sql, "", { subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: "kept" });
    expect(r.id).toMatch(/\/databases\/kept\/transparentDataEncryption\/current$/);
    expect(r.props?.status).toBe("Enabled");
  });

  it("returns an empty id for a database that is gone, so the engine drops it", async () => {
    const r = await readTde(
      sql,
      `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/dropped/transparentDataEncryption/current`,
      {},
    );
    expect(r).toEqual({ id: "" });
  });

  it("returns an empty id for a data source whose workspace is gone", async () => {
    const clients = { reads } as unknown as Parameters<typeof refreshDataSource>[0];
    const gone = await refreshDataSource(
      clients,
      batchWorkspace,
      `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/Microsoft.BatchAI/workspaces/nope`,
      undefined,
    );
    expect(gone).toEqual({ id: "" });
    const kept = await refreshDataSource(
      clients,
      batchWorkspace,
      `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/Microsoft.BatchAI/workspaces/ws1`,
      undefined,
    );
    expect(kept.id).toMatch(/workspaces\/ws1$/);
    expect(kept.inputs).toEqual({ subscriptionId: SUB, resourceGroup: "rg-ml", workspace: "ws1" });
  });
});
