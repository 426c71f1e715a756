import type { ClientSet } from "../clients/client-set";
import { StackwardenError, swCodeOf } from "../platform/errors/stackwarden-error";
import { ApiError } from "../platform/http/api-error";
import { databaseLabel, type DatabaseRef } from "../platform/arm/resource-id";
import type { TransparentDataEncryptionStatus } from "../services/sql/types";

/** A database as a person names it: resource group, server and name; the subscription when they give one. */
export type DatabaseAddress = Omit<DatabaseRef, "subscriptionId"> & { subscriptionId?: string };

/** What an out-of-band change did. */
export interface OutOfBandChange {
  database: DatabaseRef;
  /** The TDE status Resource Manager reported before (undefined when it reported none). */
  before: TransparentDataEncryptionStatus | undefined;
  after: TransparentDataEncryptionStatus;
  /** Whether a PUT was sent: false when the status already was `after`. */
  changed: boolean;
}

/**
 * Sets a database's TDE status through Resource Manager as a person in the portal does, outside any
 * stack, so that plan, drift and watch meet drift they did not make: GET the TDE configuration, then
 * PUT the new status when it differs (which starts the encryption or decryption scan, and is recorded
 * as any Resource Manager write is). The subscription, when not given, is the one IMDS names for this
 * machine (on the emulator: its estate's). A database Resource Manager does not have is an error
 * naming it, with its code (SW_RESOURCE_NOT_FOUND); nothing is written then.
 */
export async function changeTdeOutOfBand(req: {
  clients: ClientSet;
  database: DatabaseAddress;
  status: TransparentDataEncryptionStatus;
  signal?: AbortSignal;
}): Promise<OutOfBandChange> {
  const { clients, status, signal } = req;
  const subscriptionId = req.database.subscriptionId ?? (await machineSubscription(clients, signal));
  const database: DatabaseRef = { ...req.database, subscriptionId };
  try {
    const before = (await clients.sql.getTransparentDataEncryption(database, signal)).properties?.status;
    if (before === status) return { database, before, after: status, changed: false };
    await clients.sql.putTransparentDataEncryption(database, status, signal);
    return { database, before, after: status, changed: true };
  } catch (e) {
    throw namingDatabase(e, database);
  }
}

/** The subscription IMDS names for this machine; an error saying to give one when it names none. */
async function machineSubscription(clients: ClientSet, signal?: AbortSignal): Promise<string> {
  const id = (await clients.imds.instance(signal)).compute?.subscriptionId;
  if (!id) throw new StackwardenError("SW_USAGE", "IMDS names no subscription for this machine: give the database's --subscription");
  return id;
}

/** A failed read or write, its message led by the database it was about (a 404 says it has no such database). */
function namingDatabase(e: unknown, db: DatabaseRef): unknown {
  const code = swCodeOf(e);
  if (!code || !(e instanceof Error)) return e;
  const where = `database ${databaseLabel(db)} (subscription ${db.subscriptionId})`;
  const what = e instanceof ApiError && e.status === 404 ? `${where}: Resource Manager has no such database` : where;
  return new StackwardenError(code, `${what}: ${e.message}`, { cause: e });
}
