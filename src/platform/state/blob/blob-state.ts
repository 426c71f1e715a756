import { BlobAuditLog } from "./blob-audit-log";
import { openBlobContainer, type BlobTarget } from "./blob-container";
import { BlobDocumentStore } from "./blob-document-store";
import { BlobLockStore, type LeaseSettings } from "./blob-lock-store";

/**
 * The state on Azure Blob Storage (or Azurite): every machine pointed at one container shares
 * locks (leases), one audit chain per stack, probe results, the watchers' status and their outbox.
 */
export async function openBlobState(target: BlobTarget, lease: LeaseSettings = {}) {
  const c = await openBlobContainer(target);
  return {
    locks: new BlobLockStore(c, lease),
    audit: new BlobAuditLog(c),
    probes: new BlobDocumentStore(c, "probes"),
    status: new BlobDocumentStore(c, "status"),
    events: new BlobDocumentStore(c, "events"),
    describe: () => `${c.base}/${c.prefix}`,
  };
}
