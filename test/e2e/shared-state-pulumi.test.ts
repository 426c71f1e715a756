import { BlobServiceClient, StorageSharedKeyCredential } from "@azure/storage-blob";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AZURITE_ACCOUNT, AZURITE_KEY } from "../../src/platform/programs/azurite-server";
import { SqlClient } from "../../src/services/sql/client";
import { startTestAzurite } from "../helpers/azurite";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { PulumiProject, e2eCli, explain } from "../helpers/pulumi-cli";

// The team setup on one storage account (Azurite here): Pulumi's state in the container
// pulumi-state through its DIY azblob:// backend, stackwarden's locks and audit trail in the
// container stackwarden. `preview` with the policy pack, `apply --engine pulumi` (locked and audited
// on the shared store), then a clean `preview --refresh`; the trail verifies from the store.

const cli = e2eCli();
const SUB = "00000000-0000-0000-0000-000000000000";
const STACK = "team";
const SEED = `
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 150
  servers:
    - name: sql-team
      resourceGroup: rg-team
      location: West Europe
      databases:
        - { name: orders, transparentDataEncryption: Disabled }
`;

describe.skipIf(!cli)("Pulumi's azblob:// backend and stackwarden's shared state on one storage account", () => {
  let t: TestEmulator;
  let azurite: Awaited<ReturnType<typeof startTestAzurite>>;
  let project: PulumiProject;
  let sql: SqlClient;
  const tde = async () =>
    (await sql.getTransparentDataEncryption({ subscriptionId: SUB, resourceGroup: "rg-team", server: "sql-team", database: "orders" }))
      .properties?.status;

  beforeAll(async () => {
    [t, azurite] = await Promise.all([startTestEmulator({ seed: seedFromYaml(SEED) }), startTestAzurite()]);
    sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
    const service = new BlobServiceClient(azurite.accountUrl, new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY));
    await service.getContainerClient("pulumi-state").createIfNotExists();
    project = new PulumiProject({ cli: cli!, emulatorUrl: t.url });
    Object.assign(project.env, {
      AZURE_STORAGE_ACCOUNT: AZURITE_ACCOUNT,
      AZURE_STORAGE_KEY: AZURITE_KEY,
      PULUMI_BACKEND_URL: `azblob://pulumi-state?localemu=true&domain=127.0.0.1:${azurite.port}&protocol=http`,
      STACKWARDEN_STATE_URL: azurite.stateUrl("stackwarden"),
      STACKWARDEN_STATE_ACCOUNT_KEY: AZURITE_KEY,
    });
    project.writeStackConfig(STACK, {
      "stackwarden:subscriptionId": SUB,
      "stackwarden:databases": [{ resourceGroup: "rg-team", server: "sql-team", database: "orders", transparentDataEncryption: "Enabled" }],
    });
  });

  afterAll(async () => {
    project?.cleanup();
    await azurite?.stop();
    await t?.close();
  });

  it("pulumi login to the azblob:// backend and stack init write the stack into the container", async () => {
    const login = await project.pulumi(["login", project.env.PULUMI_BACKEND_URL!]);
    expect(login.code, explain(login)).toBe(0);
    const init = await project.pulumi(["stack", "init", STACK]);
    expect(init.code, explain(init)).toBe(0);
    const service = new BlobServiceClient(azurite.accountUrl, new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY));
    const names: string[] = [];
    for await (const b of service.getContainerClient("pulumi-state").listBlobsFlat()) names.push(b.name);
    expect(names).toContain(`.pulumi/stacks/stackwarden/${STACK}.json`);
  });

  it("preview with the policy pack plans the TDE change", async () => {
    const r = await project.pulumi(["preview", "--diff", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/\+\s+pulumi-nodejs:dynamic\/sql:TransparentDataEncryption/);
  });

  it("apply --engine pulumi runs pulumi up under the stack's lease and audits it on the shared store", async () => {
    expect(await tde()).toBe("Disabled");
    const r = await project.stackwarden(["apply", "--engine", "pulumi", "--stack", STACK, "--yes"]);
    expect(r.code, explain(r)).toBe(0);
    expect(await tde()).toBe("Enabled");
    expect(r.stderr).toMatch(/audit entry 1 written to http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1\/stackwarden\/audit\/team\//);
    const verify = await project.stackwarden(["audit", "verify", "--stack", STACK, "--output", "json"]);
    expect(verify.code, explain(verify)).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ intact: true, entries: 1 });
    const lock = await project.stackwarden(["lock", "status", "--stack", STACK]);
    expect(lock.stdout).toMatch(/^stack team is not locked/);
  });

  it("the converged stack previews clean with a refresh", async () => {
    const r = await project.pulumi(["preview", "--refresh", "--expect-no-changes", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).toBe(0);
  });
});
