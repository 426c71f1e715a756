import { mapBoundedAcross } from "../../platform/bounded-map";
import { sqlDatabaseId } from "../../platform/arm/resource-id";
import { UNKNOWN } from "../../platform/unknown-value";
import type { Exemption } from "../compliance/declared-exemption";
import { discoverDatabases } from "./discover-databases";
import { withDiscovered } from "../stack/scope-discovered";
import { databaseSubscription, type StackConfig } from "../stack/stack-config";
import type { StackScope } from "../stack/stack-scope";
import { unreadProblem } from "../stack/unread-entry";
import { resourcesOf } from "./carrier";
import { defineDataSource, type DataSourceInputs } from "./data-source";
import type { FactClients } from "./fact-clients";
import type { ResourceContext, ResourceInput } from "./fact-kind";
import type { DatabaseFacts } from "./tde-status";
import { readOrFailure, type ReadFailure } from "./read-failure";
import { databaseParamsOf } from "./read-params";
import { readReference } from "./programs/live-reference";

/** One database found in a stack's scope and not listed, with its TDE status as read. */
export interface DatabaseInScope {
  id: string;
  subscriptionId: string;
  resourceGroup: string;
  server: string;
  database: string;
  /** `properties.status` of its TDE configuration; absent when `readError` says why it could not be read. */
  status?: string;
  readError?: ReadFailure;
}

/** What a `sql:DatabasesInScope` read gives (its output `inScope`). */
export interface DatabasesInScopeValue {
  /** The databases found in scope and not listed, in discovery order. */
  discovered: DatabaseInScope[];
  /** The scope's exemptions, as the databases in scope they name (what `check` applies to them). */
  exemptions: Exemption[];
  /** The listed databases discovery found in scope. */
  listed: number;
  servers: number;
  /** A subscription, resource group or server whose list was refused: its databases are not in `discovered`. */
  unread: { kind: string; id: string; problem: string }[];
}

/** The scope as the data source's input carries it: without stack-file locations (a moved line is no change). */
function scopeInput(scope: StackScope): string {
  const { source: _s, exemptions, ...rest } = scope;
  return JSON.stringify({ ...rest, exemptions: exemptions.map(({ source: _e, ...e }) => e) });
}

/** The listed databases as the data source's input carries them (what is not discovered again). */
function listedInput(stack: StackConfig): string {
  return JSON.stringify(
    stack.databases
      .filter((d) => !d.discovered)
      .map((d) => ({
        subscriptionId: databaseSubscription(stack, d),
        resourceGroup: d.resourceGroup,
        server: d.server,
        database: d.database,
      })),
  );
}

/** An input that is not the JSON the program wrote: a state edited by hand, reported by name rather than thrown as a parse error. */
function parsedInput<T>(inputs: DataSourceInputs, name: string): T {
  try {
    return JSON.parse(inputs[name]) as T;
  } catch {
    throw new Error(`sql:DatabasesInScope: the input "${name}" is not the JSON the Pulumi program writes`);
  }
}

/**
 * Every database of a stack's `stackwarden:scope` that the stack does not list, with its TDE status
 * (`inScope.discovered`), and the scope's exemptions of the databases in scope (`inScope.exemptions`):
 * one per stack with a scope. Discovery is `check`'s own (discover-databases.ts, then
 * stack/scope-discovered.ts `withDiscovered`), then one TransparentDataEncryptions_Get per discovered
 * database, so the policy pack judges the same databases, with the same exemptions, as `check`.
 * The program does not manage them (no TDE resource): a discovered database is judged, not written.
 */
export const databasesInScope = defineDataSource({
  token: "sql:DatabasesInScope",
  title: "the databases of the stack's scope it does not list, with their TDE status",
  inputs: ["subscriptionId", "scope", "listed"],
  output: "inScope",
  read: async (c, i) => ({ id: databasesInScopeId(i.subscriptionId), value: await readInScope(c, i) }),
  // The scope and the listed databases are not in the id: a refresh without inputs cannot name them.
  inputsFromId: () => undefined,
  instances: (stack) =>
    stack.scope
      ? [
          {
            name: "databases-in-scope",
            inputs: { subscriptionId: stack.subscriptionId, scope: scopeInput(stack.scope), listed: listedInput(stack) },
          },
        ]
      : [],
});

/** The data source's id: the stack's subscription's SQL servers (the collection discovery starts from). */
function databasesInScopeId(subscriptionId: string): string {
  return `/subscriptions/${subscriptionId}/providers/Microsoft.Sql/servers`;
}

async function readInScope(c: FactClients, i: DataSourceInputs): Promise<DatabasesInScopeValue> {
  const scope = parsedInput<StackScope>(i, "scope");
  const listed = parsedInput<StackConfig["databases"]>(i, "listed");
  const found = await discoverDatabases(c.reads, scope);
  const stack = { subscriptionId: i.subscriptionId, databases: listed, exemptions: [], scope };
  const scoped = withDiscovered(stack, found);
  const discovered = scoped.databases.filter((d) => d.discovered);
  return {
    // In turn across subscriptions, each with its own throttling budget.
    discovered: await mapBoundedAcross(
      discovered,
      16,
      (d) => databaseSubscription(stack, d).toLowerCase(),
      async (d): Promise<DatabaseInScope> => {
        const ref = {
          subscriptionId: databaseSubscription(stack, d),
          resourceGroup: d.resourceGroup,
          server: d.server,
          database: d.database,
        };
        const tde = await readOrFailure(
          c.reads,
          async () => (await c.reads.read("TransparentDataEncryptions_Get", databaseParamsOf(ref))).value,
        );
        return {
          id: sqlDatabaseId(ref),
          ...ref,
          ...(tde.readError ? { readError: tde.readError } : { status: tde.value.properties?.status }),
        };
      },
    ),
    exemptions: scoped.exemptions,
    listed: scoped.coverage?.listed ?? 0,
    servers: found.servers,
    unread: found.unread.map((u) => ({ kind: u.kind, id: u.id, problem: unreadProblem(u) })),
  };
}

/**
 * What a `sql:DatabasesInScope` resource says is in scope: its output `inScope` when the pack is given
 * it (a stack policy after `up`, check's gathering), or else read by the pack from the resource's
 * inputs with the data source's own read. The engine hands a resource policy (sql-tde-enabled) the
 * resource's inputs only, and a preview never creates a data source, so without this read the
 * discovered databases would never reach the pack through the Pulumi CLI. The read is shared by
 * every policy of one run (readReference); undefined while an input is still unknown.
 */
export async function inScopeOf(
  r: ResourceInput,
  ctx: Pick<ResourceContext, "known" | "clients">,
): Promise<DatabasesInScopeValue | undefined> {
  const given = ctx.known(() => r.props.inScope as DatabasesInScopeValue | undefined);
  if (given !== UNKNOWN && given) return given;
  const inputs: DataSourceInputs = {};
  for (const name of databasesInScope.inputs) {
    const v = ctx.known(() => r.props[name]);
    if (v === UNKNOWN || typeof v !== "string" || !v) return undefined;
    inputs[name] = v;
  }
  return readReference(ctx.clients, `databases-in-scope:${JSON.stringify(inputs)}`, () => readInScope(ctx.clients, inputs));
}

/** The discovered databases' TDE facts, from the pack's `sql:DatabasesInScope` resources (each fact's origin is that resource). */
export async function databasesInScopeFacts(
  resources: readonly ResourceInput[],
  ctx: Pick<ResourceContext, "known" | "clients">,
): Promise<DatabaseFacts[]> {
  const found = await Promise.all(resourcesOf(databasesInScope, resources).map(async (r) => ({ r, value: await inScopeOf(r, ctx) })));
  return found.flatMap(({ r, value }) => {
    // An input not known yet (a user's program computing it): nothing to judge.
    if (!value) return [];
    return value.discovered.map((d): DatabaseFacts => ({
      id: d.id,
      resourceGroup: d.resourceGroup,
      server: d.server,
      database: d.database,
      liveTdeStatus: d.status,
      ...(r.urn ? { origin: r.urn } : {}),
      // As check reports a database the cloud answered an error for: not judged, with the reason.
      ...(d.readError
        ? {
            unread: unreadProblem({
              kind: "database",
              status: d.readError.status ?? 0,
              code: d.readError.code,
              message: d.readError.message,
            }),
          }
        : {}),
    }));
  });
}

/** The scope's exemptions the pack applies beside its config's, from the `sql:DatabasesInScope` resources. */
export async function scopeExemptionsOf(
  resources: readonly ResourceInput[],
  ctx: Pick<ResourceContext, "known" | "clients">,
): Promise<Exemption[]> {
  const values = await Promise.all(resourcesOf(databasesInScope, resources).map((r) => inScopeOf(r, ctx)));
  return values.flatMap((v) => v?.exemptions ?? []);
}
