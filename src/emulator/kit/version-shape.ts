import { publishedNamespace, type PublishedNamespace } from "./published-operations";

/**
 * An answer in its api-version's own shape. A local service builds a resource with every field it
 * knows, for any version; the recorded specs (specs/api-versions/<namespace>.json `resourceTypes`)
 * say which property paths each version of the resource type has, and everything else is left out:
 * a field introduced later is absent from an older version's answer, one a version dropped is absent
 * from it, as Resource Manager serializes each version from its own model.
 */

/** The property tree of one version: a key maps to its own subtree, or to `true` to keep its whole value (maps such as `tags`). */
export type ShapeTree = { readonly [key: string]: ShapeTree | true };

/**
 * Orders api-versions: by date, a preview before the stable version of the same date
 * (`2018-02-14-preview` < `2018-02-14`).
 */
export function apiVersionOrder(version: string): string {
  return `${version.slice(0, 10)}${version.endsWith("-preview") ? "0" : "1"}`;
}

/** Whether `version` lies in a recorded range list: `*`, `A`, `A..`, `..B`, `A..B`, comma-separated. */
export function inVersionRanges(version: string, ranges: string): boolean {
  const v = apiVersionOrder(version);
  return ranges.split(",").some((r) => {
    if (r === "*") return true;
    const [from, to] = r.includes("..") ? r.split("..") : [r, r];
    return (!from || v >= apiVersionOrder(from)) && (!to || v <= apiVersionOrder(to));
  });
}

const trees = new Map<string, ShapeTree | undefined>();

/** The property tree of `resourceType` at `version`, or undefined when the specs record no shape for the type. */
export function versionShape(namespace: PublishedNamespace, resourceType: string, version: string): ShapeTree | undefined {
  const key = `${resourceType}@${version}`;
  if (trees.has(key)) return trees.get(key);
  const recorded = publishedNamespace(namespace).resourceTypes[resourceType];
  let tree: ShapeTree | undefined;
  if (recorded) {
    const root: Record<string, unknown> = {};
    for (const [path, ranges] of Object.entries(recorded.properties)) {
      if (!inVersionRanges(version, ranges)) continue;
      let node = root;
      for (const part of path.split(".")) {
        const next = node[part];
        node = (next === undefined || next === true ? (node[part] = {}) : next) as Record<string, unknown>;
      }
    }
    tree = leavesKeptWhole(root);
  }
  trees.set(key, tree);
  return tree;
}

/** Empty subtrees are leaves: the recorded path has no recorded children, so its whole value is kept. */
function leavesKeptWhole(node: Record<string, unknown>): ShapeTree {
  const out: Record<string, ShapeTree | true> = {};
  for (const [k, v] of Object.entries(node)) {
    const children = v as Record<string, unknown>;
    out[k] = Object.keys(children).length === 0 ? true : leavesKeptWhole(children);
  }
  return out;
}

/** Whether `path` (`properties.state`) is part of `resourceType` at `version`; true when no shape is recorded. */
export function versionHas(namespace: PublishedNamespace, resourceType: string, version: string, path: string): boolean {
  let node: ShapeTree | true | undefined = versionShape(namespace, resourceType, version);
  if (node === undefined) return true;
  for (const part of path.split(".")) {
    if (node === true) return true;
    node = node[part];
    if (node === undefined) return false;
  }
  return true;
}

/** `value` with only what `tree` allows (arrays: each item against the tree's `[]`). */
export function pruneToShape(value: unknown, tree: ShapeTree | true): unknown {
  if (tree === true || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const item = tree["[]"];
    return item === undefined ? value : value.map((v) => pruneToShape(v, item));
  }
  const out: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  // for…in over a plain JSON object: its own keys, without allocating an entries array (a hot path).
  for (const k in source) {
    const sub = tree[k];
    if (sub !== undefined) out[k] = pruneToShape(source[k], sub);
  }
  return out;
}

/** `value` (a resource) as `resourceType` answers it at `version`: unchanged when the specs record no shape for the type. */
export function toVersionShape<T>(namespace: PublishedNamespace, resourceType: string, version: string, value: T): T {
  const tree = versionShape(namespace, resourceType, version);
  return tree ? (pruneToShape(value, tree) as T) : value;
}
