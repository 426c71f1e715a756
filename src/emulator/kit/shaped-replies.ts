import type { EmulatorReply, Handler } from "./emulator-app";
import type { PublishedOperation } from "./published-operations";
import { pruneToShape, versionShape, type ShapeTree } from "./version-shape";

/**
 * The handler with each successful answer cut to its api-version's shape (version-shape.ts): a
 * resource, or each item of a list's `value`. Errors pass unchanged. Operations whose resource type
 * has no recorded shape answer as the handler built them.
 */
export function inVersionShape(handler: Handler, op: PublishedOperation): Handler {
  const type = op.resourceType;
  if (!type) return handler;
  // The tree of each version, looked up once: the front door has already refused unpublished versions.
  const trees = new Map<string, ShapeTree | undefined>();
  const treeOf = (version: string): ShapeTree | undefined => {
    if (!trees.has(version)) trees.set(version, versionShape(op.namespace, type, version));
    return trees.get(version);
  };
  return (req) => {
    const tree = treeOf(req.query.get("api-version") ?? "");
    const reply = handler(req);
    if (!tree) return reply;
    return reply instanceof Promise ? reply.then((r) => shaped(r, tree)) : shaped(reply, tree);
  };
}

function shaped(reply: EmulatorReply, tree: ShapeTree): EmulatorReply {
  const body = reply.body;
  if (reply.status >= 300 || body === null || typeof body !== "object" || Buffer.isBuffer(body)) return reply;
  const list = body as { value?: unknown };
  if (Array.isArray(list.value) && tree.value === undefined) {
    return { ...reply, body: { ...list, value: list.value.map((item) => pruneToShape(item, tree)) } };
  }
  return { ...reply, body: pruneToShape(body, tree) };
}
