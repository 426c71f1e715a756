import type { SqlResource } from "./sql-resource";
import { servers } from "./resources/servers";
import { serverKeyCustody } from "./resources/server-key-custody";
import { elasticPools } from "./resources/elastic-pools";
import { databases } from "./resources/databases";
import { databaseKeyCustody } from "./resources/database-key-custody";
import { transparentDataEncryption } from "./resources/transparent-data-encryption";
import { serviceTierAdvisors } from "./resources/service-tier-advisors";
import { firewallRules } from "./resources/firewall-rules";

/**
 * Every resource the SQL emulator serves, one module each (seed fragment, state, routes), one line
 * each. Order matters only where a module's state reads another's: a server's pools come before its
 * databases, which name them.
 */
export const SQL_RESOURCES: readonly SqlResource[] = [
  servers,
  serverKeyCustody,
  elasticPools,
  databases,
  databaseKeyCustody,
  transparentDataEncryption,
  serviceTierAdvisors,
  firewallRules,
];
