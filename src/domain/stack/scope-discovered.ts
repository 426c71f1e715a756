import { databaseLabel, sqlDatabaseId } from "../../platform/arm/resource-id";
import type { Exemption } from "../compliance/declared-exemption";
import { databaseSubscription, type DesiredDatabase, type StackConfig } from "./stack-config";
import { exemptionNames, type ScopeCoverage, type ScopedDatabase } from "./stack-scope";

/**
 * A stack with its scope's databases: the listed ones keep their own entries and desired state;
 * each database found in scope and not listed becomes an entry of its own (`discovered`, its
 * subscription, the scope's desired TDE status, located at `stackwarden:scope`), so every fact kind
 * and rule judges it as it judges a listed one. The scope's exemptions become exemptions of the
 * databases in scope they name.
 */
export function withDiscovered<S extends Pick<StackConfig, "scope" | "databases" | "exemptions" | "subscriptionId">>(
  stack: S,
  discovery: { databases: readonly ScopedDatabase[]; servers: number },
): S & Pick<StackConfig, "coverage"> {
  const scope = stack.scope;
  if (!scope) return stack;
  const idOf = (d: DesiredDatabase) => sqlDatabaseId({ ...d, subscriptionId: databaseSubscription(stack, d) }).toLowerCase();
  const listed = new Set(stack.databases.map(idOf));
  const found = new Set<string>();
  const discovered: DesiredDatabase[] = [];
  const exemptions: Exemption[] = [];
  for (const d of discovery.databases) {
    const id = sqlDatabaseId(d).toLowerCase();
    if (found.has(id)) continue;
    found.add(id);
    // The scope's exemptions name databases in scope, listed (an adopted one keeps its exemption) or not.
    for (const e of scope.exemptions)
      if (exemptionNames(e, d))
        exemptions.push({
          resourceId: sqlDatabaseId(d),
          ...(e.rules ? { rules: e.rules } : {}),
          reason: e.reason,
          ...(e.expires ? { expires: e.expires } : {}),
          ...(e.source ? { source: e.source } : {}),
        });
    if (listed.has(id)) continue;
    discovered.push({
      subscriptionId: d.subscriptionId,
      resourceGroup: d.resourceGroup,
      server: d.server,
      database: d.database,
      transparentDataEncryption: scope.transparentDataEncryption,
      ...(scope.source ? { source: scope.source } : {}),
      discovered: true,
    });
  }
  const listedInScope = stack.databases.filter((d) => found.has(idOf(d)));
  const coverage: ScopeCoverage = {
    subscriptions: scope.subscriptions.length,
    servers: discovery.servers,
    listed: listedInScope.length,
    discovered: discovered.length,
    discoveredIds: discovered.map(idOf),
    listedOutside: stack.databases.filter((d) => !found.has(idOf(d))).map((d) => databaseLabel(d)),
    inScopeIds: [...listedInScope, ...discovered].map(idOf),
  };
  return { ...stack, databases: [...stack.databases, ...discovered], exemptions: [...stack.exemptions, ...exemptions], coverage };
}
