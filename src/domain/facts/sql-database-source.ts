import { databaseSubscription } from "../stack/stack-config";
import { sqlDatabaseId } from "../../platform/arm/resource-id";
import { defineDataSource, inputsFromArmId, logicalName, type DataSourceInputs } from "./data-source";
import { readOrFailure } from "./read-failure";
import { databaseParamsOf } from "./read-params";
import { DATABASE_INPUTS, databaseRefOf } from "./tde-status";

const databaseId = (i: DataSourceInputs) => sqlDatabaseId(databaseRefOf(i));

/**
 * A stack database's resource (Databases_Get at 2023-02-01-preview) as the API returns it
 * (`databaseResource`: its identity and, when it has one, its own TDE protector), or why it could
 * not be read (`readError`): one per stack database. It brings database-level protectors to the
 * policy pack (the TDE protector facts build a database's own entry from it) and names their keys
 * to the vault and key sources that follow it.
 */
export const sqlDatabase = defineDataSource({
  token: "sql:Database",
  title: "a SQL database's resource (its own TDE protector and identity)",
  inputs: DATABASE_INPUTS,
  output: "databaseResource",
  unreadable: "reported",
  read: async (c, i) => ({
    id: databaseId(i),
    ...(await readOrFailure(c.reads, async () => (await c.reads.read("Databases_Get", databaseParamsOf(databaseRefOf(i)))).value)),
  }),
  inputsFromId: inputsFromArmId(DATABASE_INPUTS, { server: "servers", database: "databases" }, databaseId),
  instances: (stack) =>
    stack.databases.map((d) => ({
      name: `database-${logicalName(d.resourceGroup, d.server, d.database)}`,
      inputs: { subscriptionId: databaseSubscription(stack, d), resourceGroup: d.resourceGroup, server: d.server, database: d.database },
    })),
});
