import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sqlResource, type SqlResource } from "../../src/emulator/services/sql/sql-resource";
import {
  declarationOf,
  orderResources,
  resourceModuleFiles,
  SQL_RESOURCES_DIR,
  sqlResources,
  sqlResourcesIn,
} from "../../src/emulator/services/sql/sql-resources";
import { PROJECT_ROOT } from "../../src/platform/version";

/**
 * The SQL emulator finds its resources by listing resources/: a module dropped there is served with
 * no registry line, in a deterministic order, from the sources (Vitest) and from the compiled
 * modules (dist/, the installed package); a module that declares no resource is refused, named.
 */

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A folder of compiled-style modules (CommonJS), each declaring a resource marked as `sqlResource` marks it, or not. */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "sw-sql-resources-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
const declared = (name: string, extra = "") =>
  `exports.r = Object.defineProperty({ name: ${JSON.stringify(name)}${extra} }, Symbol.for("stackwarden.emulator.sqlResource"), { value: true });\n`;

describe("the SQL emulator's resource folder", () => {
  it("serves one resource per module of resources/, each module's own declaration", () => {
    const files = resourceModuleFiles(SQL_RESOURCES_DIR);
    expect(files.length).toBe(readdirSync(SQL_RESOURCES_DIR).filter((f) => f.endsWith(".ts")).length);
    const names = sqlResources().map((r) => r.name);
    expect(new Set(names).size).toBe(files.length);
    // A resource the docs name, found with no line anywhere but its module.
    expect(names).toContain("firewall rules");
  });

  it("loads a module dropped into a folder with require, in file-name order, .js only once (no maps, no declarations)", () => {
    const dir = folder({
      "b-second.js": declared("second"),
      "a-first.js": declared("first"),
      "a-first.js.map": "{}",
      "a-first.d.ts": "export {};",
      "notes.md": "not a module",
    });
    expect(resourceModuleFiles(dir)).toEqual(["a-first.js", "b-second.js"]);
    expect(sqlResourcesIn(dir, (p) => require(p) as Record<string, unknown>).map((r) => r.name)).toEqual(["first", "second"]);
  });

  it("refuses a module that declares no resource, or two, naming the file", () => {
    const dir = folder({ "helpers.js": "exports.x = { name: 'not declared' };\n" });
    expect(() => sqlResourcesIn(dir, (p) => require(p) as Record<string, unknown>)).toThrow(
      /sw-sql-resources-\w+\/helpers\.js exports no SQL resource: each module of the emulator's resources\/ folder exports one declaration made with sqlResource/,
    );
    const a = sqlResource({ name: "a" });
    const b = sqlResource({ name: "b" });
    expect(() => declarationOf("resources/two.ts", { a, b })).toThrow(
      "resources/two.ts exports 2 SQL resources (a, b): a module declares one",
    );
    expect(declarationOf("resources/one.ts", { a, helper: { name: "plain" } })).toBe(a);
  });

  it("puts a module after the ones it names in `after`, else in file-name order; refuses a loop and an unknown one", () => {
    const pools = sqlResource({ name: "pools" });
    const dbs = sqlResource({ name: "dbs", after: [pools] });
    const zeta = sqlResource({ name: "zeta" });
    const order = (...m: [string, SqlResource][]) => orderResources(m.map(([file, resource]) => ({ file, resource }))).map((r) => r.name);
    expect(order(["a-dbs.ts", dbs], ["b-pools.ts", pools], ["c-zeta.ts", zeta])).toEqual(["pools", "dbs", "zeta"]);
    const x = sqlResource({ name: "x", after: [] as SqlResource[] });
    const y = sqlResource({ name: "y", after: [x] });
    (x.after as SqlResource[]).push(y);
    expect(() => order(["x.ts", x], ["y.ts", y])).toThrow("the modules x.ts, y.ts name each other in after: no order builds their state");
    expect(() => order(["a-dbs.ts", dbs])).toThrow('a-dbs.ts: after names the resource "pools", which no module of the folder declares');
  });

  it("refuses two modules declaring one seed key or one route, naming both (a stale compiled module, say)", () => {
    const route = {
      at: "server" as const,
      method: "GET" as const,
      path: "firewallRules",
      operation: "FirewallRules_ListByServer",
      handler: () => ({ status: 200 }),
    };
    const seed = (r: string) => sqlResource({ name: r, seed: { server: { firewallRules: { type: "array" } as never } } });
    expect(() =>
      orderResources([
        { file: "new.js", resource: seed("new") },
        { file: "old.js", resource: seed("old") },
      ]),
    ).toThrow('old.js declares the seed key "firewallRules" of each server, which new.js declares too');
    const routed = (r: string) => sqlResource({ name: r, routes: [route] });
    expect(() =>
      orderResources([
        { file: "a.js", resource: routed("a") },
        { file: "b.js", resource: routed("b") },
      ]),
    ).toThrow('b.js declares the route GET server "firewallRules", which a.js declares too');
  });

  it("the compiled modules (dist/, what the package ships) serve the same resources in the same order", () => {
    const script = `console.log(JSON.stringify(require("./dist/src/emulator/services/sql/sql-resources.js").sqlResources().map((r) => r.name)))`;
    const names = JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: PROJECT_ROOT, encoding: "utf8" })) as string[];
    expect(names).toEqual(sqlResources().map((r) => r.name));
  });
});
