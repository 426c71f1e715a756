import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import type { ArmOperationRow } from "../../src/platform/arm/arm-operation";
import { readSpec } from "../../src/platform/schemas/swagger-schemas";
import { ARM_OPERATION_TABLES, ARM_READS } from "../../src/services/arm-reads";

/**
 * Every row of every service's operation table against its spec document: the path template is
 * one of the document's with that operationId and method, the api-version is the document's, the
 * answer schema is the operation's (a list's: its items'), a row is a list exactly when the
 * operation is pageable, a fixed parameter takes a value the spec allows, and the parameters sent
 * unencoded are exactly those the spec marks `x-ms-skip-url-encoding`. Derived from the tables: a
 * new row is checked without a word here.
 */

interface SpecParameter {
  name?: string;
  in?: string;
  enum?: string[];
  "x-ms-skip-url-encoding"?: boolean;
  $ref?: string;
}
interface SpecOperation {
  operationId?: string;
  parameters?: SpecParameter[];
  responses?: Record<string, { schema?: { $ref?: string } }>;
  "x-ms-pageable"?: { itemName?: string; nextLinkName?: string | null };
}
type SpecDoc = {
  info: { version: string };
  paths: Record<string, Record<string, SpecOperation>>;
  /** Templates a `?…` keeps apart from another one (`/{roleId}?disambiguation_dummy`). */
  "x-ms-paths"?: Record<string, Record<string, SpecOperation>>;
  definitions?: Record<string, { properties?: Record<string, { items?: { $ref?: string } }> }>;
};

/** A parameter as written, or the one a `$ref` (in the document, or in a file beside it) points at. */
function resolveParameter(spec: string, p: SpecParameter): SpecParameter {
  if (!p.$ref) return p;
  const [file, pointer] = p.$ref.split("#");
  const docPath = file ? posix.normalize(posix.join(posix.dirname(spec), file)).replace(/^(\.\.\/)+/, "") : spec;
  let node: unknown = readSpec(docPath);
  for (const key of pointer.split("/").filter(Boolean)) node = (node as Record<string, unknown>)[key];
  return resolveParameter(docPath, node as SpecParameter);
}

/** The `{parameters}` of a path template. */
function templateParams(path: string): string[] {
  return [...path.split("?")[0].matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
}

const ROWS = Object.entries(ARM_OPERATION_TABLES).flatMap(([service, table]) =>
  Object.entries(table as Record<string, ArmOperationRow>).map(([name, row]) => ({ service, name, row })),
);

describe("every operation table row matches its spec document", () => {
  it("there are rows, and the reads the client set sends are every table's rows", () => {
    expect(ROWS.length).toBeGreaterThan(0);
    expect(Object.keys(ARM_READS).sort()).toEqual(ROWS.map((r) => r.name).sort());
  });

  it.each(ROWS)("$service $name", ({ name, row }) => {
    const doc = readSpec(row.spec) as SpecDoc;
    const method = (row.method ?? "GET").toLowerCase();
    const op = (doc.paths[row.path] ?? doc["x-ms-paths"]?.[row.path])?.[method];
    expect(op, `${row.spec} has no ${method.toUpperCase()} ${row.path}`).toBeDefined();
    expect(op.operationId).toBe(name);
    expect(row.apiVersion).toBe(doc.info.version);

    // The answer: the object's schema, or (a list) the schema of its items.
    const answered = op.responses?.["200"]?.schema?.$ref;
    expect(answered, `${name} declares a 200 answer`).toMatch(/^#\//);
    const pageable = op["x-ms-pageable"];
    expect(!!row.list, `${name}: a row is a list exactly when the operation is pageable`).toBe(!!pageable);
    if (row.list) {
      const listDefinition = doc.definitions?.[answered!.slice("#/definitions/".length)];
      const items = listDefinition?.properties?.[pageable?.itemName ?? "value"]?.items?.$ref;
      expect(items, `${name}: the items of its list`).toBe(`#${row.schema}`);
    } else {
      expect(answered).toBe(`#${row.schema}`);
    }

    // The parameters: every one of the template is in the spec's path parameters; fixed values are allowed ones.
    const parameters = (op.parameters ?? []).map((p) => resolveParameter(row.spec, p)).filter((p) => p.in === "path");
    const byName = new Map(parameters.map((p) => [p.name, p]));
    for (const param of templateParams(row.path)) expect(byName.has(param), `${name}: {${param}} is a path parameter`).toBe(true);
    for (const [param, value] of Object.entries(row.fixed ?? {})) {
      expect(templateParams(row.path)).toContain(param);
      const allowed = byName.get(param)?.enum;
      if (allowed) expect(allowed, `${name}: ${param}`).toContain(value);
    }
    const unencoded = parameters.filter((p) => p["x-ms-skip-url-encoding"]).map((p) => p.name);
    expect([...(row.unencoded ?? [])].sort(), `${name}: the parameters sent unencoded`).toEqual(unencoded.sort());
  });
});
