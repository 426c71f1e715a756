import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The project root: the nearest directory above this file whose package.json is stackwarden's. Works from src/ and dist/src/. */
export const PROJECT_ROOT: string = findRoot(__dirname);

/** The package version, as in package.json. */
export const VERSION: string = (JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string }).version;

function findRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "stackwarden") return dir;
    if (dirname(dir) === dir) throw new Error(`cannot find stackwarden's package.json above ${start}`);
  }
}
