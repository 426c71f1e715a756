import type { FactClients } from "../fact-clients";
import type { ReadFailure } from "../read-failure";
import { NOT_KNOWN_YET } from "./program-estate";

/**
 * How long the pack keeps a live read of what a program only references (a vault by name, a key by
 * URI, a server it does not create): every policy of one `pulumi preview` asks for the same ones.
 */
export const REFERENCE_TTL_MS = 60_000;

/** A live read of something a program references, shared by every policy of one run (by `key`). */
export function readReference<T>(clients: FactClients, key: string, read: () => Promise<T>): Promise<T> {
  return clients.remember(`program-reference:${key.toLowerCase()}`, REFERENCE_TTL_MS, read);
}

/** Why a reference cannot be read: the subscription is not known (no provider config, no ARM_SUBSCRIPTION_ID); undefined when it is. */
export function subscriptionMissing(subscriptionId: string): ReadFailure | undefined {
  if (subscriptionId !== NOT_KNOWN_YET) return undefined;
  return {
    code: "SubscriptionNotKnown",
    message:
      "the program's subscription is not known: set the provider's subscriptionId (pulumi config set azure-native:subscriptionId) or ARM_SUBSCRIPTION_ID, so what the program only references can be read",
    readAt: new Date().toISOString(),
  };
}
