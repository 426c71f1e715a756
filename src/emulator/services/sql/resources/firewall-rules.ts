import { armPage } from "../../../kit/arm-conventions";
import { Type, type Static } from "../../../kit/seed-types";
import { childId, sqlServerId } from "../../../../platform/arm/resource-id";
import { armChildName } from "../seed-formats";
import { serverRef, unique } from "../sql-estate";
import { sqlResource } from "../sql-resource";

/**
 * A server's firewall rules (FirewallRules_ListByServer; specs/sql/Microsoft.Sql/stable/2021-11-01/
 * FirewallRules.json), seeded per server as `firewallRules: [{ name, startIpAddress, endIpAddress }]`,
 * read-only, listed in seed order and paged.
 */

const IPV4 = "^((25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1?\\d?\\d)$";

const firewallRuleSeed = Type.Object(
  {
    name: armChildName("Required: unique per server, case-insensitively (AllowAllWindowsAzureIps is the portal's Azure-services rule)."),
    startIpAddress: Type.String({
      pattern: IPV4,
      description: "Required: an IPv4 address; 0.0.0.0 with endIpAddress 0.0.0.0 admits Azure services.",
    }),
    endIpAddress: Type.String({ pattern: IPV4, description: "Required: an IPv4 address, not below startIpAddress." }),
  },
  { description: "A server-level firewall rule (the spec's FirewallRule: its name and ServerFirewallRuleProperties)." },
);

declare module "../sql-estate" {
  interface SqlServerState {
    /** Absent in state saved before firewall rules existed: none. */
    firewallRules?: Static<typeof firewallRuleSeed>[];
  }
}

/** The resource: its seed fragment on each server, its state, FirewallRules_ListByServer. */
export const firewallRules = sqlResource({
  name: "firewall rules",
  seed: {
    server: {
      firewallRules: Type.Optional(Type.Array(firewallRuleSeed, { description: "Optional: the server's firewall rules. Default: none." })),
    },
  },
  state: {
    server: (f, c) => {
      const rules = f.firewallRules ?? [];
      unique(
        rules.map((r) => r.name),
        (name, i) => `${c.at}.firewallRules[${i}].name: firewall rule "${name}" is declared twice on server "${c.ref.server}"`,
      );
      return rules.length ? { firewallRules: rules.map((r) => ({ ...r })) } : {};
    },
  },
  routes: [
    {
      at: "server",
      method: "GET",
      path: "firewallRules",
      operation: "FirewallRules_ListByServer",
      handler: ({ req, ctx, server }) =>
        armPage(
          req,
          (server.firewallRules ?? []).map((r) => ({
            id: childId(sqlServerId(serverRef(server)), "firewallRules", r.name),
            name: r.name,
            type: "Microsoft.Sql/servers/firewallRules",
            // 2014-04-01's FirewallRule also carries `kind` and `location` (kept for that version only).
            kind: "v12.0",
            location: server.location,
            properties: { startIpAddress: r.startIpAddress, endIpAddress: r.endIpAddress },
          })),
          ctx.settings.pageSize,
        ),
    },
  ],
});
