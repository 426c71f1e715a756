import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { PROJECT_ROOT } from "../../../platform/version";
import { isSqlResource, type SqlResource } from "./sql-resource";

/**
 * Every resource the SQL emulator serves is one module of resources/ (seed fragment, state,
 * routes), found by listing that folder: adding a resource is adding its module, with no registry
 * line. The emulator is apart from the layers and reads its own folder; the compiled modules are in
 * dist/ and in the installed package beside this one.
 */
export const SQL_RESOURCES_DIR = join(__dirname, "resources");

/** A module's exports, by its path. */
type ModuleExports = Record<string, unknown>;

/**
 * The module files of a folder, in file-name order (by code unit, whatever the locale): `.ts` where
 * the sources run (Vitest), `.js` in dist/ and the installed package; declarations and maps left out.
 */
export function resourceModuleFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith(".d.ts"))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The one resource a module declares (`sqlResource`); an error naming the file when it declares none or several. */
export function declarationOf(file: string, exports: ModuleExports): SqlResource {
  const found = Object.entries(exports).filter(([, v]) => isSqlResource(v)) as [string, SqlResource][];
  if (found.length === 1) return found[0][1];
  if (found.length === 0)
    throw new Error(
      `${file} exports no SQL resource: each module of the emulator's resources/ folder exports one declaration made with sqlResource({ name, seed, state, routes }) (src/emulator/services/sql/sql-resource.ts)`,
    );
  throw new Error(`${file} exports ${found.length} SQL resources (${found.map(([k]) => k).join(", ")}): a module declares one`);
}

/**
 * The resources in the order their state is built, their seed keys listed and their routes
 * mounted: file-name order, except that a module comes after those it names in `after`. Two modules
 * declaring one seed key or one route are refused, naming both files (a stale compiled module left
 * in dist/ by a rename shows up here).
 */
export function orderResources(modules: readonly { file: string; resource: SqlResource }[]): SqlResource[] {
  const fileOf = new Map(modules.map((m) => [m.resource, m.file]));
  refuseOverlaps(modules);
  const placed: SqlResource[] = [];
  const waiting = [...modules];
  while (waiting.length) {
    const i = waiting.findIndex((m) => (m.resource.after ?? []).every((d) => placed.includes(d)));
    if (i < 0) {
      const stuck = waiting[0];
      const missing = (stuck.resource.after ?? []).find((d) => !fileOf.has(d));
      throw new Error(
        missing
          ? `${stuck.file}: after names the resource "${missing.name}", which no module of the folder declares`
          : `the modules ${waiting.map((m) => m.file).join(", ")} name each other in after: no order builds their state`,
      );
    }
    placed.push(waiting.splice(i, 1)[0].resource);
  }
  return placed;
}

/** Each seed key (per level) and each route (method, level, path) has one module. */
function refuseOverlaps(modules: readonly { file: string; resource: SqlResource }[]): void {
  const owners = new Map<string, string>();
  const claim = (what: string, file: string) => {
    const other = owners.get(what);
    if (other)
      throw new Error(
        `${file} declares ${what}, which ${other} declares too (a module renamed without a rebuild leaves its old one in dist/)`,
      );
    owners.set(what, file);
  };
  for (const { file, resource } of modules) {
    for (const [level, keys] of Object.entries(resource.seed ?? {}))
      for (const key of Object.keys(keys ?? {})) claim(`the seed key "${key}" of each ${level}`, file);
    for (const r of resource.routes ?? []) claim(`the route ${r.method} ${r.at} "${r.path}"`, file);
  }
}

/** Loads the folder's modules with `load` and orders their declarations (`orderResources`). */
export function sqlResourcesIn(dir: string, load: (path: string) => ModuleExports): SqlResource[] {
  return orderResources(
    resourceModuleFiles(dir).map((f) => {
      const path = join(dir, f);
      const file = relative(PROJECT_ROOT, path);
      return { file, resource: declarationOf(file, load(path)) };
    }),
  );
}

let resources: SqlResource[] | undefined;
let preloaded: Map<string, ModuleExports> | undefined;

/** Every resource the SQL emulator serves: the modules of resources/, loaded once. */
export function sqlResources(): readonly SqlResource[] {
  return (resources ??= sqlResourcesIn(SQL_RESOURCES_DIR, loadModule));
}

function loadModule(path: string): ModuleExports {
  const imported = preloaded?.get(path);
  if (imported) return imported;
  // A runner with a require hook for TypeScript (ts-node) loads the sources as they are.
  if (path.endsWith(".ts") && !require.extensions[".ts"])
    throw new Error(
      `${relative(PROJECT_ROOT, path)} is TypeScript, which require cannot load: a runner of the sources imports the SQL emulator's resource modules first (preloadSqlResources; Vitest's setup file test/setup/sql-resources.mts)`,
    );
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the folder's compiled modules, found by listing it
  return require(path) as ModuleExports;
}

/**
 * For a runner of the TypeScript sources (Vitest), whose modules `require` cannot load: imports the
 * folder's modules its own way before the emulator is first used. Compiled code (dist/, the
 * installed package) needs none of this.
 */
export async function preloadSqlResources(): Promise<void> {
  const paths = resourceModuleFiles(SQL_RESOURCES_DIR).map((f) => join(SQL_RESOURCES_DIR, f));
  preloaded = new Map(await Promise.all(paths.map(async (p) => [p, (await import(p)) as ModuleExports] as const)));
}
