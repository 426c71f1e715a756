import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The slowest files, measured (seconds on a loaded 2-core machine, 2026-11-29), slowest first.
 * Vitest starts files by their last run's duration, and without one (CI's fresh `npm ci` has no
 * cache) by file size, largest first: the e2e tier's slowest file (then pulumi-by-hand, 58 lines)
 * started last and ran alone for minutes at the tier's end. These start first in their tier.
 */
const SLOWEST_FIRST = [
  "test/readme/readme-blocks.test.ts", // 552: npm ci in a fresh clone, docs/pulumi.md's Pulumi by hand, every runnable block
  "test/e2e/certificate-probes.test.ts", // 181-434
  "test/e2e/pulumi-lifecycle.test.ts", // 155
  "test/secrets/no-secret-leaks.test.ts", // 129-150: ~50 CLI processes
  "test/e2e/artifact-gate.test.ts", // 128
];

/** Vitest's order (tiers, then last durations or size), with SLOWEST_FIRST's files first in their tier. */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOWEST_FIRST.findIndex((p) => f.moduleId.endsWith(`/${p}`));
      return i < 0 ? SLOWEST_FIRST.length : i;
    };
    const tier = new Map(sorted.map((f) => [f, sorted.findIndex((g) => g.project === f.project)]));
    // Array.prototype.sort is stable: within a tier, the files not listed keep Vitest's order.
    return [...sorted].sort((a, b) => tier.get(a)! - tier.get(b)! || rank(a) - rank(b));
  }
}

// Two projects: the unit tier (files in parallel), then the e2e tier (test/e2e: the real Pulumi CLI,
// two files at a time) in a later group, so the tiers do not compete for the CPU and the e2e tier's
// time is its own (its global setup prints it, or the SKIPPED line when no CLI is found).
export default defineConfig({
  test: {
    pool: "forks",
    sequence: { sequencer: SlowestFirst },
    // Two test files at a time (Vitest's default on two cores is one): most of the unit tier waits on
    // child processes (emulators, the CLI, git), so the second worker halves its wall time here
    // (555 -> 309 s) without a test slowing past its timeout. The e2e tier stays one file at a time.
    maxWorkers: 2,
    // Scans in tests are fresh unless a test asks for the scan cache (its own directory, or a process
    // started with an environment of its own): the suite neither reads nor fills ~/.cache/stackwarden/scans.
    env: { STACKWARDEN_SCAN_CACHE: "off" },
    // The SQL emulator finds its resource modules by listing their folder; from the sources they are
    // imported through Vitest's loader first (the file says why).
    setupFiles: ["test/setup/sql-resources.mts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/e2e/**"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/global-setup.ts"],
          // Each step runs the Pulumi CLI (seconds each; much more on a loaded 2-core runner).
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // Two e2e files at a time: each works in a throw-away project of its own (PULUMI_HOME, a
          // file:// backend, stack files, emulators and Azurite on ports the OS picks), so they share
          // neither a port nor a directory, and much of each step waits on the CLI's child processes.
          fileParallelism: true,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
