/**
 * Loads a compiled module of stackwarden's core (`dist/<subpath>.js`) at call time.
 *
 * Provider methods are serialized into the stack and re-loaded by the dynamic-provider plugin with
 * `require-from-string`, which gives the code no file name; Node's self-reference by package name
 * therefore does not work there. Instead this walks up from the working directory (the plugin runs
 * in the project) to stackwarden's package.json; `STACKWARDEN_HOME` can name the project instead.
 * It must stay self-contained: it is serialized by value with every provider.
 */
export function loadCore<T = any>(subpath: string): T {
  const path = require("node:path") as typeof import("node:path");
  const fs = require("node:fs") as typeof import("node:fs");
  const start = process.env.STACKWARDEN_HOME || process.cwd();
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, "package.json");
    if (fs.existsSync(pkg)) {
      try {
        if ((JSON.parse(fs.readFileSync(pkg, "utf8")) as { name?: string }).name === "stackwarden") {
          return require(path.join(dir, "dist", subpath)) as T;
        }
      } catch (e) {
        // Only a missing dist file means "not built"; a module that dist itself cannot find keeps its own message.
        if ((e as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND" && !fs.existsSync(`${path.join(dir, "dist", subpath)}.js`)) {
          // No `cause`: Pulumi compiles this file with its own TypeScript settings, whose lib has no ErrorOptions.
          // eslint-disable-next-line preserve-caught-error
          throw new Error(`stackwarden is not built in ${dir}: run \`npm run build\` (missing dist/${subpath}.js)`);
        }
        throw e;
      }
    }
    if (path.dirname(dir) === dir) {
      throw new Error(`cannot find the stackwarden project above ${start}; run Pulumi from the project directory or set STACKWARDEN_HOME`);
    }
  }
}

/** The engine's marker for a value not known during a preview. */
export function isUnknown(v: unknown): boolean {
  return v === "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
}
