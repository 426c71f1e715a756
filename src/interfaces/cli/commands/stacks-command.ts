import type { Command } from "commander";
import { changesSince, MAX_NAMED_FILES, NO_COMMIT, SHARED_INPUTS, stacksAffected, type ChangedStack } from "../../gitops/changed-stacks";
import { listStacks, type ListedStack } from "../../gitops/stack-listing";
import { stackOwnInputs } from "../../gitops/stack-inputs";
import { UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";
import { choiceOption } from "../option-parsers";
import { STACKS_DIR_OPTION } from "../stack-options";

type Format = "table" | "json";

interface StacksFlags {
  output: Format;
  changedSince?: string;
  stacksDir?: string;
}

export function registerStacks(program: Command, io: CommandIO): void {
  program
    .command("stacks")
    .description(
      "list the project's stacks (stacks/Pulumi.<name>.yaml), or those changed since a git ref; --output json is a GitHub Actions matrix (exit 0, 1 error)",
    )
    .option(
      "--output <format>",
      "table or json ({ include: [{ stack, file, engine, ... }] }, usable as strategy.matrix)",
      choiceOption(["table", "json"] as const),
      "table",
    )
    .option(...STACKS_DIR_OPTION)
    .option(
      "--changed-since <ref>",
      `only stacks changed since this git ref (from its merge base with HEAD, uncommitted edits included): the stack file, the artifacts and rule files of its stackwarden:artifacts, or a file every stack depends on (${SHARED_INPUTS.map((s) => s.what).join("; ")}). An all-zero SHA (a new branch) counts every stack as changed`,
    )
    .addHelpText(
      "after",
      [
        "",
        "Stack files are listed, not validated: a file that cannot be read for its engine (broken YAML, a bad stackwarden:engine)",
        "is a warning on stderr (and `problem` in JSON), and is listed as native, so its own job runs and its plan or check names the line.",
        "In JSON each entry has stack, file (project-relative) and engine (stackwarden:engine: native or pulumi);",
        `with --changed-since also changedFiles (at most ${MAX_NAMED_FILES}) and changedFileCount.`,
        "",
        "Examples:",
        "  stackwarden stacks",
        '  stackwarden stacks --output json --changed-since "origin/$GITHUB_BASE_REF"',
      ].join("\n"),
    )
    .action((flags: StacksFlags) => {
      let stacks: (ListedStack | ChangedStack)[];
      try {
        stacks = listStacks(io.cwd, flags.stacksDir);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      if (flags.changedSince !== undefined) {
        const ref = flags.changedSince.trim();
        if (!ref) throw new UsageError("--changed-since needs a git ref (a branch, tag or commit)");
        let changes;
        try {
          changes = changesSince(io.cwd, ref);
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        const affected = stacksAffected(stacks, changes, (s) => stackOwnInputs(io.cwd, s.file), flags.stacksDir);
        if (NO_COMMIT.test(ref))
          io.err(`stackwarden stacks: ${ref} is no commit (a push that created the branch): every stack counts as changed`);
        for (const r of affected.removed)
          io.err(
            `stackwarden stacks: stack ${r} was removed since ${ref}; removing a stack file changes nothing live, so it is not listed`,
          );
        stacks = affected.changed;
      }
      for (const s of stacks)
        if (s.problem) io.err(`stackwarden stacks: warning: ${s.problem}; listed as native, so its job runs and names the problem`);
      io.out(flags.output === "json" ? JSON.stringify({ include: stacks }, null, 2) : renderTable(stacks, flags.changedSince));
    });
}

function renderTable(stacks: (ListedStack | ChangedStack)[], since: string | undefined): string {
  if (stacks.length === 0) return since ? `No stack changed since ${since}.` : "No stacks (no stacks/Pulumi.<name>.yaml files).";
  const rows = stacks.map((s) => {
    const row = [s.stack, s.engine, s.file];
    if (since) {
      const c = s as ChangedStack;
      const more = c.changedFileCount - c.changedFiles.length;
      row.push(c.changedFileCount === 0 ? "(no base commit)" : `${c.changedFiles.join(", ")}${more > 0 ? ` and ${more} more` : ""}`);
    }
    return row;
  });
  const head = since ? ["STACK", "ENGINE", "FILE", `CHANGED SINCE ${since}`] : ["STACK", "ENGINE", "FILE"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}
