import type { FactMap } from "../facts/model/compliance-facts";

type PlacementKind = FactMap["placements"]["kind"];

/** Words for each kind of placed thing, in the data-residency rule's messages and `where`'s table. */
export const KIND_LABELS: Record<PlacementKind, string> = {
  "sql-database": "SQL database",
  "batch-workspace": "Batch AI workspace",
  "batch-cluster": "Batch AI cluster",
  "batch-file-server": "Batch AI file server",
  "key-vault": "Key Vault",
  site: "site",
};
