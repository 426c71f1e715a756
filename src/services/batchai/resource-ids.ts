import type { WorkspaceRef } from "./types";

const WORKSPACE_ID = /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/[^/]+\/workspaces\/([^/]+)(?:\/|$)/i;

/**
 * The workspace a Batch AI resource id belongs to (a workspace's own id, or that of a cluster,
 * experiment, job or file server under it); undefined when the id has another shape.
 * ARM matches namespaces case-insensitively and either spelling is accepted.
 */
export function workspaceRefOf(id: string): WorkspaceRef | undefined {
  const m = WORKSPACE_ID.exec(id);
  if (!m) return undefined;
  return { subscriptionId: decodeSegment(m[1]), resourceGroup: decodeSegment(m[2]), workspace: decodeSegment(m[3]) };
}

/** The last segment of a resource id: the resource's own name. */
export function leafName(id: string): string {
  const trimmed = id.replace(/\/+$/, "");
  return decodeSegment(trimmed.slice(trimmed.lastIndexOf("/") + 1));
}

/** Renders a workspace reference for messages: `rg/ws (subscription sub)`. */
export function describeWorkspace(ref: WorkspaceRef): string {
  return `Batch AI workspace '${ref.workspace}' (resource group '${ref.resourceGroup}', subscription '${ref.subscriptionId}')`;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
