import type { ClientSet } from "../clients/client-set";
import { collectBatchInventory } from "../domain/inventory/batch-inventory";
import { collectKeyVaultInventory } from "../domain/inventory/key-vault-inventory";
import { vaultSubscriptions } from "../domain/facts/key-custody-reads";
import type { InventoryError } from "../domain/inventory/read-problems";
import { collectSqlInventory } from "../domain/inventory/sql-inventory";
import type { StackConfig } from "../domain/stack/stack-config";

/**
 * Reads every data source the stack names, each list on its own: Batch AI (operations, usages,
 * workspaces, clusters, experiments, file servers, jobs), SQL (advisors, pool activity, TDE,
 * scans, TDE protectors, server keys) and Key Vault (the vaults and keys of customer-managed TDE
 * protectors). A read that fails is one entry of `errors`; everything that could be read is kept.
 */
export async function runInventory(req: {
  stack: StackConfig;
  clients: ClientSet;
  concurrency?: number;
  /** Called as reads complete (the Batch AI reads, whose count grows with discovery). */
  onProgress?: (done: number, total: number) => void;
}) {
  const { stack, clients } = req;
  const [b, sqlResult] = await Promise.all([
    collectBatchInventory(
      clients.batch,
      { subscriptionId: stack.subscriptionId, resourceGroups: stack.batch.resourceGroups, locations: stack.batch.locations },
      { concurrency: req.concurrency, onProgress: req.onProgress },
    ),
    collectSqlInventory(clients.sql, stack, { concurrency: req.concurrency }),
  ]);
  // The vaults and keys of the customer-managed protectors just read.
  const kv = await collectKeyVaultInventory(clients.keyVault, vaultSubscriptions(stack), sqlResult.inventory.encryptionProtectors, {
    concurrency: req.concurrency,
  });
  const { usagesByLocation: _byLocation, errors: batchErrors, warnings: batchWarnings, ...batchLists } = b;
  const errors: InventoryError[] = [...batchErrors, ...sqlResult.errors, ...kv.errors];
  const warnings = [...batchWarnings, ...sqlResult.warnings];
  return { batch: batchLists, sql: sqlResult.inventory, keyVault: kv.inventory, errors, warnings };
}
