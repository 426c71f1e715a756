import type { SqlClient } from "../../services/sql/client";

type TdeReader = Pick<SqlClient, "getTransparentDataEncryption">;

/**
 * A TDE reader that reads each database's configuration once however often it is asked, so the
 * rules' facts and the placements of one `check` share one GET per database. For one run only.
 */
export function sharedTdeReads(sql: TdeReader): TdeReader {
  const reads = new Map<string, ReturnType<TdeReader["getTransparentDataEncryption"]>>();
  return {
    getTransparentDataEncryption: (ref, signal) => {
      const key = [ref.subscriptionId, ref.resourceGroup, ref.server, ref.database].join("/").toLowerCase();
      let read = reads.get(key);
      if (!read) reads.set(key, (read = sql.getTransparentDataEncryption(ref, signal)));
      return read;
    },
  };
}
