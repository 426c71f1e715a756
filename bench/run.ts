import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * `npm run bench`: runs each compiled `bench/*.bench.js` in its own process (so memory figures
 * are not shared), one after another. Each prints its figures and a ratio against a baseline it
 * measured in the same run. Pass names to run only some: `npm run bench -- transport`.
 */
const only = process.argv.slice(2);
const files = readdirSync(__dirname)
  .filter((f) => f.endsWith(".bench.js"))
  .sort()
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
let failed = 0;
for (const f of files) {
  process.stdout.write(`\n== ${f.replace(/\.bench\.js$/, "")} ==\n`);
  const r = spawnSync(process.execPath, ["--expose-gc", join(__dirname, f)], { stdio: "inherit" });
  if (r.status !== 0) {
    failed += 1;
    process.stdout.write(`bench ${f} failed with exit code ${r.status}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
