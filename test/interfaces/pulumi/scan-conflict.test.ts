import { afterAll, beforeAll, expect, it } from "vitest";
import { applyTdeInputs } from "../../../src/interfaces/pulumi/tde-resource";
import { SqlClient } from "../../../src/services/sql/client";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

const SUB = "00000000-0000-0000-0000-000000000000";
let t: TestEmulator;
let sql: SqlClient;
beforeAll(async () => {
  t = await startTestEmulator({
    seed: seedFromYaml(`
sql:
  scanDurationMs: 400
  servers:
    - { name: s1, resourceGroup: rg, databases: [{ name: db1, transparentDataEncryption: Disabled }] }
`),
  });
  sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
});
afterAll(() => t.close());

it("a change refused while an earlier scan runs (409) waits for that scan, then converges", async () => {
  const ref = { subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: "db1" };
  await sql.putTransparentDataEncryption(ref, "Enabled");
  // Reversing the running encryption is refused by the service...
  await expect(sql.putTransparentDataEncryption(ref, "Disabled")).rejects.toMatchObject({ status: 409 });
  // ...so the resource waits for the scan to end and PUTs again.
  const outs = await applyTdeInputs(sql, { ...ref, transparentDataEncryption: "Disabled", pollIntervalMs: 20, scanTimeoutSeconds: 10 });
  expect(outs.status).toBe("Disabled");
  expect((await sql.getTransparentDataEncryption(ref)).properties?.status).toBe("Disabled");
  expect(await sql.listTransparentDataEncryptionActivities(ref)).toEqual([]);
});
