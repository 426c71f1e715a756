import { parseResourceId, sqlServerId } from "../../platform/arm/resource-id";
import type { EncryptionProtector } from "../../services/sql/key-custody-types";
import { carrierOf } from "./carrier";
import { defineDataSource, logicalName, type DataSourceInputs } from "./data-source";
import { readOrFailure } from "./read-failure";
import { serverParamsOf } from "./read-params";
import { encryptionProtector } from "./tde-protectors";

/** The token of a SQL server's data source: tde-protectors.ts finds its resources by it (it cannot import this module, which follows its protector). */
export const SQL_SERVER_TOKEN = "sql:ServerIdentity" as const;

const serverOf = (i: DataSourceInputs) => ({ subscriptionId: i.subscriptionId, resourceGroup: i.resourceGroup, server: i.server });

/**
 * A SQL server with a customer-managed TDE protector (Servers_Get at 2021-11-01) as the API returns
 * it (`serverResource`: its `identity` and `properties.primaryUserAssignedIdentityId`), or why it
 * could not be read (`readError`): the identity `tde-key-access` judges, in the policy pack. One per
 * server whose protector, once read, is customer-managed.
 */
export const sqlServerOfProtector = defineDataSource({
  token: carrierOf(SQL_SERVER_TOKEN).token,
  title: "a SQL server with a customer-managed TDE protector (its managed identity)",
  inputs: ["subscriptionId", "resourceGroup", "server"],
  output: "serverResource",
  unreadable: "reported",
  read: async (c, i) => ({
    id: sqlServerId(serverOf(i)),
    ...(await readOrFailure(c.reads, async () => (await c.reads.read("Servers_Get", serverParamsOf(serverOf(i)))).value)),
  }),
  inputsFromId: (id) => {
    const p = parseResourceId(id);
    const server = p?.segments.length === 1 && p.segments[0].type.toLowerCase() === "servers" ? p.segments[0].name : undefined;
    return p?.resourceGroup && server ? { subscriptionId: p.subscriptionId, resourceGroup: p.resourceGroup, server } : undefined;
  },
  follows: {
    source: encryptionProtector,
    instances: (protectors) =>
      (protectors as (EncryptionProtector | undefined)[]).flatMap((p) => {
        if (typeof p?.properties?.serverKeyType !== "string" || p.properties.serverKeyType.toLowerCase() !== "azurekeyvault") return [];
        const id = parseResourceId(p.id);
        const server = id?.segments.find((s) => s.type.toLowerCase() === "servers")?.name;
        if (!id?.resourceGroup || !server) return [];
        return [
          {
            name: logicalName("sql-server", id.resourceGroup, server),
            inputs: { subscriptionId: id.subscriptionId, resourceGroup: id.resourceGroup, server },
          },
        ];
      }),
  },
});
