import type { DesiredDatabase, ResidencyConfig, SourceLocation, StackConfig } from "../stack/stack-config";
import { leafName, sqlDatabaseId, workspaceRefOf } from "../../platform/arm/resource-id";
import type { Cluster, FileServer, Workspace } from "../../services/batchai/types";
import type { TransparentDataEncryption } from "../../services/sql/types";

/** What is placed in a country (the data-residency rule's kinds). */
export type ResidencyKind = "sql-database" | "batch-workspace" | "batch-cluster" | "batch-file-server" | "key-vault" | "site";

/** A resource or site to place, with what is known of where it is. Plain data. */
export interface ResidencySubject {
  kind: ResidencyKind;
  /** The ARM id of a resource; `site:<name>` for a site. */
  id: string;
  /** A short name for tables and messages: `sql-prod-1/orders`, `rg-ml/ws-vision/gpu-nc6`, the site's name. */
  label: string;
  /** The ARM location the API returned for it (resources); undefined when it returned none. */
  location?: string;
  /** Where the location came from when not from the resource itself, e.g. `workspace rg-ml/ws-vision`. */
  locationFrom?: string;
  /** The address to geocode (sites). */
  address?: string;
  /** The stack-file line that brought it in (the database's or site's entry, or the Batch section). */
  source?: SourceLocation;
}

/**
 * SQL databases, placed by their TDE configuration's `location` (as the SQL client returned it):
 * one subject per database of the stack, in the stack's order; `tdes[i]` belongs to `databases[i]`.
 */
export function sqlSubjects(
  subscriptionId: string,
  databases: readonly DesiredDatabase[],
  tdes: readonly (TransparentDataEncryption | undefined)[],
): ResidencySubject[] {
  return databases.map((d, i) => ({
    kind: "sql-database",
    // A database discovered in the stack's scope carries its own subscription.
    id: sqlDatabaseId({
      subscriptionId: d.subscriptionId ?? subscriptionId,
      resourceGroup: d.resourceGroup,
      server: d.server,
      database: d.database,
    }),
    label: `${d.server}/${d.database}`,
    location: nonEmpty(tdes[i]?.location),
    locationFrom: "its transparent data encryption configuration",
    source: d.source,
  }));
}

/**
 * Batch AI workspaces by their location, and their clusters and file servers, which ARM models
 * as proxy resources without a location of their own: they are where their workspace is (an own
 * `location`, should the API send one, wins). Each points at the stack's entry for its workspace,
 * else at the `stackwarden:batch` section.
 */
export function batchSubjects(
  batch: Pick<StackConfig["batch"], "workspaces" | "source">,
  inventory: { workspaces: readonly Workspace[]; clusters: readonly Cluster[]; fileServers: readonly FileServer[] },
): ResidencySubject[] {
  const workspaceLocation = new Map<string, string | undefined>();
  for (const w of inventory.workspaces) if (w.id) workspaceLocation.set(w.id.toLowerCase(), nonEmpty(w.location));
  const sourceOf = (id: string): SourceLocation | undefined => {
    const ref = workspaceRefOf(id);
    const named = ref
      ? batch.workspaces.find(
          (t) =>
            t.resourceGroup.toLowerCase() === ref.resourceGroup.toLowerCase() && t.workspace.toLowerCase() === ref.workspace.toLowerCase(),
        )
      : undefined;
    return named?.source ?? batch.source;
  };
  const labelOf = (id: string): string => {
    const ref = workspaceRefOf(id);
    const leaf = leafName(id);
    if (!ref) return leaf;
    return ref.workspace === leaf ? `${ref.resourceGroup}/${ref.workspace}` : `${ref.resourceGroup}/${ref.workspace}/${leaf}`;
  };
  const out: ResidencySubject[] = [];
  for (const w of inventory.workspaces) {
    if (!w.id) continue;
    out.push({ kind: "batch-workspace", id: w.id, label: labelOf(w.id), location: nonEmpty(w.location), source: sourceOf(w.id) });
  }
  const children: [ResidencyKind, readonly (Cluster | FileServer)[]][] = [
    ["batch-cluster", inventory.clusters],
    ["batch-file-server", inventory.fileServers],
  ];
  for (const [kind, items] of children) {
    for (const item of items) {
      if (!item.id) continue;
      const own = nonEmpty((item as { location?: unknown }).location);
      const ref = workspaceRefOf(item.id);
      const wsId = WORKSPACE_ID_PREFIX.exec(item.id)?.[0];
      out.push({
        kind,
        id: item.id,
        label: labelOf(item.id),
        location: own ?? (wsId ? workspaceLocation.get(wsId.toLowerCase()) : undefined),
        locationFrom: own || !ref ? undefined : `workspace ${ref.resourceGroup}/${ref.workspace}`,
        source: sourceOf(item.id),
      });
    }
  }
  return out;
}

/**
 * The Key Vaults that hold the stack's customer-managed TDE protectors, by their location (the
 * vault's, as Resource Manager returned it): the key that unlocks the data lives there. Only vaults
 * that were read (an id) are placed; one that could not be read is the key rules' finding.
 */
export function keyVaultSubjects(
  vaults: readonly { id?: string; name: string; resourceGroup?: string; location?: string }[],
  source?: SourceLocation,
): ResidencySubject[] {
  return vaults.flatMap((v) =>
    v.id
      ? [
          {
            kind: "key-vault" as const,
            id: v.id,
            label: v.resourceGroup ? `${v.resourceGroup}/${v.name}` : v.name,
            location: nonEmpty(v.location),
            ...(source ? { source } : {}),
          },
        ]
      : [],
  );
}

/** The stack's named sites, placed by geocoding their address. */
export function siteSubjects(residency: ResidencyConfig | undefined): ResidencySubject[] {
  return (residency?.sites ?? []).map((s) => ({ kind: "site", id: `site:${s.name}`, label: s.name, address: s.address, source: s.source }));
}

/** The workspace's own id at the start of a child's id. */
const WORKSPACE_ID_PREFIX = /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/[^/]+\/workspaces\/[^/]+/i;

function nonEmpty(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v : undefined;
}
