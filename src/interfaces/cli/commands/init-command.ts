import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Command } from "commander";
import { StackwardenError } from "../../../platform/errors/stackwarden-error";
import { STATE_IGNORE_LINE, starterFiles } from "../../gitops/starter-files";
import { stackwardenRepository } from "../../gitops/stackwarden-repository";
import { UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";

/** `stackwarden init`: the files a repository that holds only stacks starts from (starter-files.ts). */
export function registerInit(program: Command, io: CommandIO): void {
  program
    .command("init")
    .description(
      "start a repository of your own: a commented starter stack, the three GitHub workflows that use stackwarden's by reference, and .stackwarden/ in .gitignore (exit 0; 1 when a file exists, unless --force)",
    )
    .option("--stack <name>", "the starter stack's name: writes stacks/Pulumi.<name>.yaml", "dev")
    .option("--force", "overwrite files that exist (the stack file, the workflows)", false)
    .addHelpText(
      "after",
      "\nWrites, in the working directory: stacks/Pulumi.<name>.yaml, .github/workflows/stackwarden-{pull-request,merge,drift}.yml, and a .stackwarden/ line in .gitignore (added when missing, never replaced). A file that exists stops it before anything is written (SW_FILE_EXISTS), unless --force.",
    )
    .action((flags: { stack: string; force: boolean }) => {
      if (!/^[A-Za-z0-9_.-]+$/.test(flags.stack))
        throw new UsageError(`--stack "${flags.stack}": a stack name may only hold letters, digits, '-', '_' and '.'`);
      const files = starterFiles(flags.stack, stackwardenRepository());
      const existing = Object.keys(files).filter((f) => existsSync(join(io.cwd, f)));
      if (existing.length && !flags.force)
        throw new StackwardenError(
          "SW_FILE_EXISTS",
          `${existing.join(", ")} ${existing.length === 1 ? "exists" : "exist"} already: nothing written; pass --force to overwrite`,
        );
      for (const [f, text] of Object.entries(files)) {
        mkdirSync(dirname(join(io.cwd, f)), { recursive: true });
        writeFileSync(join(io.cwd, f), text);
        io.out(`${existing.includes(f) ? "overwrote" : "wrote"} ${f}`);
      }
      if (ignoreState(join(io.cwd, ".gitignore"))) io.out(`added ${STATE_IGNORE_LINE} to .gitignore`);
      io.out(
        `next: npx stackwarden emulator, then npx stackwarden check --stack ${flags.stack} --emulator <the URL it printed first>; set the repository variables the workflows read (README, "Pipelines (GitHub Actions)")`,
      );
    });
}

/** Adds the state folder to `.gitignore` (created when missing) unless a line already names it; true when it did. */
function ignoreState(file: string): boolean {
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  const names = new Set([STATE_IGNORE_LINE, STATE_IGNORE_LINE.replace(/\/$/, ""), `/${STATE_IGNORE_LINE}`]);
  if (text.split(/\r?\n/).some((l) => names.has(l.trim()))) return false;
  writeFileSync(file, `${text}${text && !text.endsWith("\n") ? "\n" : ""}${STATE_IGNORE_LINE}\n`);
  return true;
}
