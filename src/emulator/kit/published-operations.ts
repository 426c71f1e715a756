import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../platform/version";

/**
 * The ARM operations the emulator serves, as Azure publishes them: for each operationId, every
 * api-version its specs define it in, and the resource type whose per-version shape its answers take.
 * The data is recorded under `specs/api-versions/<namespace>.json` (specs/SOURCES.md says where it
 * came from); a route names its operation and the emulator accepts exactly those versions, so no
 * version list is written twice.
 */

/** The provider namespaces whose published operations are recorded under specs/api-versions/. */
export const PUBLISHED_NAMESPACES = [
  "Microsoft.Sql",
  "Microsoft.KeyVault",
  "Microsoft.Authorization",
  "Microsoft.Insights",
  "Microsoft.BatchAI",
] as const;
export type PublishedNamespace = (typeof PUBLISHED_NAMESPACES)[number];

/** One published ARM operation. */
export interface PublishedOperation {
  readonly namespace: PublishedNamespace;
  readonly operationId: string;
  /** Every api-version the operation is published in, oldest first. */
  readonly apiVersions: readonly string[];
  /** The resource type whose shape (specs/api-versions/<namespace>.json `resourceTypes`) its answers take, when recorded. */
  readonly resourceType?: string;
}

/** One namespace's recorded file. */
export interface PublishedNamespaceFile {
  operations: Record<string, { versions: string[]; resourceType?: string }>;
  /** Per resource type: each property path (`properties.keyId`, `properties.keys.[].uri`) and the versions that carry it. */
  resourceTypes: Record<string, { properties: Record<string, string> }>;
}

const files = new Map<PublishedNamespace, PublishedNamespaceFile>();

/** The recorded file of a namespace (read once per process). */
export function publishedNamespace(namespace: PublishedNamespace): PublishedNamespaceFile {
  let f = files.get(namespace);
  if (!f) {
    const path = join(PROJECT_ROOT, "specs", "api-versions", `${namespace}.json`);
    f = JSON.parse(readFileSync(path, "utf8")) as PublishedNamespaceFile;
    files.set(namespace, f);
  }
  return f;
}

/** The operation `operationId` of `namespace` as published; throws when it is not recorded (a route naming an unknown operation is a bug). */
export function publishedOperation(namespace: PublishedNamespace, operationId: string): PublishedOperation {
  const op = publishedNamespace(namespace).operations[operationId];
  if (!op) throw new Error(`specs/api-versions/${namespace}.json records no operation ${operationId}`);
  return { namespace, operationId, apiVersions: op.versions, ...(op.resourceType ? { resourceType: op.resourceType } : {}) };
}
