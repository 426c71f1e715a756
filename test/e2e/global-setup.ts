import type { TestProject } from "vitest/node";
import { E2E_SKIP_LINE, e2eCli, e2eRequired } from "../helpers/pulumi-cli";

/**
 * Global setup of the e2e project: says in one line whether the tier runs (and with which CLI), or
 * why it is skipped. With STACKWARDEN_E2E=required a missing CLI fails the run (the e2e tier's
 * "has a Pulumi CLI" test), after the unit tier has run and reported. Its teardown
 * prints the tier's wall time and its files' summed time (two e2e files at a time, after the unit tier).
 */
export default function setup(project: TestProject): (() => void) | undefined {
  const cli = e2eCli();
  if (!cli) {
    if (e2eRequired()) {
      // Not thrown here: the unit tier still runs and reports, and the e2e tier's own test fails the run.
      process.stdout.write(
        "\nFAILING e2e: STACKWARDEN_E2E=required but no Pulumi CLI was found (on PATH or in the pulumi:install cache): run `npm run pulumi:install`\n\n",
      );
      return undefined;
    }
    process.stdout.write(`\n${E2E_SKIP_LINE}\n\n`);
    return undefined;
  }
  process.stdout.write(`\ne2e: Pulumi CLI ${cli.command} (from ${cli.source})\n`);
  return () => {
    const files = project.vitest.state.getFiles().filter((f) => f.projectName === project.name);
    const ms = files.reduce((n, f) => n + (f.result?.duration ?? 0), 0);
    // Wall time from the first file's start to the last file's end (files overlap, two at a time).
    const starts = files.map((f) => f.result?.startTime ?? Infinity);
    const ends = files.map((f) => (f.result?.startTime ?? 0) + (f.result?.duration ?? 0));
    const wall = Math.max(...ends) - Math.min(...starts);
    if (files.length)
      process.stdout.write(
        `e2e tier: ${(wall / 1000).toFixed(1)} s wall, ${(ms / 1000).toFixed(1)} s summed over ${files.length} file(s)\n`,
      );
  };
}
