import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CarrierToken } from "../../../src/domain/facts/carrier";
import type { TestEmulator } from "../../helpers/emulator";
import { DynamicResourceDriver, PROJECT_ROOT, ProviderPlugin } from "../../helpers/provider-plugin";
import { TEST_STACK, dbRef, providerStateDir, startEstate } from "../../providers/provider-test-kit";

// A database the cloud does not have, in the Pulumi program: its TransparentDataEncryption resource
// and its SQL data sources fail with the line every command gives for it, at the stack file's entry
// the program passes (`stackEntry`), through the real dynamic-provider plugin.

type Providers = { providerText(name: "tde" | CarrierToken): string };
const compiled = () => require(join(PROJECT_ROOT, "dist/providers/index.js")) as Providers;

let t: TestEmulator;
let plugin: ProviderPlugin;
beforeAll(async () => {
  t = await startEstate();
  plugin = await ProviderPlugin.start({ env: { STACKWARDEN_EMULATOR: t.url, STACKWARDEN_STATE_URL: `file:${providerStateDir()}` } });
  await plugin.configure();
});
afterAll(async () => {
  await plugin?.close();
  await t?.close();
});

const GHOST =
  /database rg-data\/sql-pulumi-1\/ghost: the cloud has no such database \(ResourceNotFound: .*\); fix the stack entry, or create the database/;

it("the TDE resource's create names the stack file's entry and says the cloud has no such database", async () => {
  const tde = new DynamicResourceDriver(
    plugin,
    compiled().providerText("tde"),
    "pulumi-nodejs:dynamic/sql:TransparentDataEncryption",
    "tde-ghost",
  );
  const inputs = { ...dbRef("ghost"), transparentDataEncryption: "Enabled", stackEntry: "stacks/Pulumi.dev.yaml:17:7", stack: TEST_STACK };
  expect((await tde.check(inputs)).failures).toEqual([]);
  const err = await tde.create(inputs).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(err?.message).toMatch(new RegExp(`stacks/Pulumi\\.dev\\.yaml:17:7: ${GHOST.source}`));
});

it("the database's advisors data source says the same", async () => {
  const advisors = new DynamicResourceDriver(
    plugin,
    compiled().providerText("sql:ServiceTierAdvisors"),
    "pulumi-nodejs:dynamic/sql:ServiceTierAdvisors",
    "advisors-ghost",
  );
  const err = await advisors.create(dbRef("ghost")).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(err?.message).toMatch(GHOST);
});
