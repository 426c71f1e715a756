import { afterAll, beforeAll } from "vitest";
import { openStateStores } from "../../../src/platform/state/open-state";
import { azuriteEnv, startTestAzurite } from "../../helpers/azurite";
import { stateContract } from "./state-contract";

/** The state contract over Azure Blob Storage, served by Azurite: each run in a new container. */
let azurite: Awaited<ReturnType<typeof startTestAzurite>>;
beforeAll(async () => {
  azurite = await startTestAzurite();
});
afterAll(() => azurite?.stop());

stateContract("Azure Blob Storage (Azurite)", () =>
  openStateStores({ cwd: process.cwd(), env: { ...azuriteEnv(azurite.freshStateUrl("team-a")), STACKWARDEN_LEASE_SECONDS: "15" } }),
);
