import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";

/**
 * `npm run bench`: runs each compiled `bench/*.bench.js` in its own process (so memory figures
 * are not shared), one after another. Each prints its figures and a ratio against a baseline it
 * measured in the same run, and one `goal:` line per goal (bench/goal.ts); the goal lines are
 * repeated at the end as a summary. Pass names to run only some: `npm run bench -- transport`.
 */
async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith(".bench.js"))
    .sort()
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
  const cpu = cpus();
  process.stdout.write(
    `machine: ${cpu.length} cores, ${cpu[0]?.model ?? "unknown CPU"}, node ${process.version}; ${new Date().toISOString()}\n`,
  );
  let failed = 0;
  const goals: string[] = [];
  for (const f of files) {
    const name = f.replace(/\.bench\.js$/, "");
    process.stdout.write(`\n== ${name} ==\n`);
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ["--expose-gc", join(__dirname, f)], { stdio: ["ignore", "pipe", "inherit"] });
      let partial = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        process.stdout.write(d);
        const lines = (partial + d).split("\n");
        partial = lines.pop() ?? "";
        for (const l of lines) if (l.startsWith("goal: ") || l.startsWith("SKIPPED")) goals.push(`[${name}] ${l}`);
      });
      child.on("close", resolve);
    });
    if (code !== 0) {
      failed += 1;
      process.stdout.write(`bench ${f} failed with exit code ${code}\n`);
      goals.push(`[${name}] FAILED with exit code ${code}`);
    }
  }
  process.stdout.write(`\n== summary ==\n${goals.join("\n")}\n`);
  process.exitCode = failed ? 1 : 0;
}

void main();
