import type { ResourceContext, ResourceInput } from "../fact-kind";
import { AZURE_CLASSIC, azureClassicEstate } from "./azure-classic-estate";
import { AZURE_NATIVE, azureNativeEstate } from "./azure-native-estate";
import { NOT_KNOWN_YET, type ProgramEstate } from "./program-estate";
import { ProgramResources } from "./program-resources";

/** A user's program as the kinds read it: its estate (both providers'), and the subscription it deploys to. */
export interface Program {
  estate: ProgramEstate;
  /** The providers' `subscriptionId` (their config), else ARM_SUBSCRIPTION_ID, as the providers take it; NOT_KNOWN_YET without either. */
  subscriptionId: string;
}

const PROVIDERS = ["pulumi:providers:azure-native", "pulumi:providers:azure"];

/** Every resource type `programOf` reads: the providers' (their subscription) and each estate's. */
export const PROGRAM_TYPES: readonly string[] = [...PROVIDERS, ...Object.values(AZURE_NATIVE), ...Object.values(AZURE_CLASSIC)];

// Every policy of the pack builds its kinds from the same resources: the program is read once per list.
const programs = new WeakMap<readonly ResourceInput[], Program>();

/** The program the pack's resources declare (azure-native and azure types; none of either: an empty estate). */
export function programOf(resources: readonly ResourceInput[], ctx: ResourceContext): Program {
  const cached = programs.get(resources);
  if (cached) return cached;
  const view = new ProgramResources(resources, ctx);
  const configured = view
    .ofType(...PROVIDERS)
    .map((p) => view.str(p, "subscriptionId"))
    .find((s): s is string => typeof s === "string" && s !== "");
  const subscriptionId = configured ?? ctx.clients.env.ARM_SUBSCRIPTION_ID ?? NOT_KNOWN_YET;
  const native = azureNativeEstate(view, subscriptionId);
  const classic = azureClassicEstate(view, subscriptionId);
  const estate = {
    databases: [...native.databases, ...classic.databases],
    servers: [...native.servers, ...classic.servers],
    protectors: [...native.protectors, ...classic.protectors],
    vaults: [...native.vaults, ...classic.vaults],
    keys: [...native.keys, ...classic.keys],
    grants: [...native.grants, ...classic.grants],
  };
  const program = { estate, subscriptionId };
  programs.set(resources, program);
  return program;
}
