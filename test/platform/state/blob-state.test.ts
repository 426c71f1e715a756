import { afterAll, beforeAll } from "vitest";
import { openStateStores } from "../../../src/platform/state/open-state";
import { azuriteEnv, startTestAzurite } from "../../helpers/azurite";
import { containerSas, createContainer, freshContainer } from "./azurite-sas";
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

// A SAS scoped to one container (`sr=c`, `sp=racwdl`), as a team is handed one: it may neither
// create the container nor read its properties, and needs neither.
stateContract("Azure Blob Storage by a container SAS (Azurite)", async () => {
  const container = freshContainer();
  await createContainer(azurite.accountUrl, container);
  return openStateStores({
    cwd: process.cwd(),
    env: { STACKWARDEN_STATE_URL: `${azurite.stateUrl(container, "team-a")}?${containerSas(container)}`, STACKWARDEN_LEASE_SECONDS: "15" },
  });
});
