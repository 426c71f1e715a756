import type { ClientSet } from "../clients/client-set";
import { adoptDatabases, type AdoptedEntry } from "../domain/stack/adopt-databases";
import { parseStackConfig, type DesiredDatabase, type StackConfig } from "../domain/stack/stack-config";
import type { ScopeCoverage } from "../domain/stack/stack-scope";
import type { UnreadEntry } from "../domain/stack/unread-entry";
import { UsageError } from "../platform/usage-error";
import { discoverScope } from "./scope";

/** What `discover` found: the databases in scope the stack file does not list. */
export interface DiscoverOutcome {
  /** In subscription, server and list order. */
  unlisted: DesiredDatabase[];
  coverage: ScopeCoverage;
  /** Lists of the scope that could not be read (their databases are missing from `unlisted`). */
  unread: UnreadEntry[];
}

/** Discovers a stack's scope and names what it does not list. A stack without `stackwarden:scope` is a usage error. */
export async function runDiscover(req: {
  stack: StackConfig;
  clients: Pick<ClientSet, "reads">;
  concurrency?: number;
  signal?: AbortSignal;
}): Promise<DiscoverOutcome> {
  if (!req.stack.scope)
    throw new UsageError(
      `${req.stack.file} has no stackwarden:scope: name the subscriptions (and groups, tags) whose databases it answers for`,
    );
  const scoped = await discoverScope(req.stack, req.clients, req);
  return { unlisted: scoped.stack.databases.filter((d) => d.discovered), coverage: scoped.stack.coverage!, unread: scoped.unread };
}

/**
 * The stack file's text with the unlisted databases adopted as `stackwarden:databases` entries
 * (adopt-databases.ts), checked to load as a stack that lists them: what `discover --write` writes.
 */
export function adoptedStackText(file: string, text: string, stack: StackConfig, unlisted: readonly DesiredDatabase[]): string {
  const entries: AdoptedEntry[] = unlisted.map((d) => ({
    ...(d.subscriptionId && d.subscriptionId.toLowerCase() !== stack.subscriptionId.toLowerCase()
      ? { subscriptionId: d.subscriptionId }
      : {}),
    resourceGroup: d.resourceGroup,
    server: d.server,
    database: d.database,
    transparentDataEncryption: d.transparentDataEncryption,
  }));
  const written = adoptDatabases(text, entries, "adopted by `stackwarden discover --write`: found in stackwarden:scope, not listed");
  const reread = parseStackConfig(file, written, {});
  if (reread.databases.length !== stack.databases.length + entries.length)
    throw new Error(`${file}: the adopted entries did not load back as ${entries.length} more database(s); the file was left as it was`);
  return written;
}
