import { configDefaults, defineConfig } from "vitest/config";
import base from "./vitest.config.mts";

// `npm run test:quick`: the quick subset to run while you work (under 3 minutes on 2 cores), not
// instead of `npm test` before a push. The core, in process: the domain, the platform, the service
// clients, the policies, the emulator, the use cases, the Pulumi program and the layering and lint
// rules, with the unit project's settings (vitest.config.mts). It needs no build: the files that
// run the compiled CLI or read dist/ are left out, and so are the slowest files (10 s or more each,
// measured at load 6-8 on 2 cores: 110 s for no-secret-leaks, which runs every command, then 27, 18
// and 14-10 s). The CLI, the watcher, the GitOps and Pulumi interfaces, the pipelines, the
// campaigns' slices, the README's blocks and the e2e tier run in `npm test`.

const { projects: _projects, ...unitSettings } = base.test ?? {};

/** Files that start the compiled CLI (node bin/stackwarden.js) or read dist/: they test the last build, not the sources. */
const NEEDS_A_BUILD = [
  "test/domain/facts/toy-fact-kind.test.ts",
  "test/domain/compliance/toy-rule.test.ts",
  "test/policies/finding-levels-grpc.test.ts",
  "test/platform/auth/azure-cli-credential.test.ts",
  "test/emulator/arm-throttling.test.ts",
  "test/emulator/seed-validator.test.ts",
  "test/emulator/state-persistence.test.ts",
  "test/platform/runtime-support.test.ts",
];

/** Files of 10 s or more each in one of two runs (a gRPC analyzer, the whole geocoding data set, long TDE scans). */
const SLOW = [
  "test/services/geocoding/geocoding-access.test.ts",
  "test/services/geocoding/geocoding-client.test.ts",
  "test/policies/residency-grpc.test.ts",
  "test/emulator/key-custody-seed.test.ts",
  "test/emulator/services/geocoding/answer-formats.test.ts",
  "test/services/sql/tde-scan.test.ts",
];

export default defineConfig({
  test: {
    ...unitSettings,
    name: "quick",
    include: [
      "test/domain/**/*.test.ts",
      "test/platform/**/*.test.ts",
      "test/services/**/*.test.ts",
      "test/clients/**/*.test.ts",
      "test/policies/**/*.test.ts",
      "test/emulator/**/*.test.ts",
      "test/usecases/**/*.test.ts",
      "test/stacks/**/*.test.ts",
      "test/layering/**/*.test.ts",
      "test/lint/**/*.test.ts",
    ],
    exclude: [...configDefaults.exclude, ...NEEDS_A_BUILD, ...SLOW],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
