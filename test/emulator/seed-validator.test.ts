import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import Ajv, { type ValidateFunction } from "ajv";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { resolveRelativeTimes, SEED_AJV_OPTIONS, seedSchema } from "../../src/emulator/seed";
import { precompiledSeedValidator, seedSchemaDigest, writeSeedValidator } from "../../src/emulator/seed-validator";
import { LOCAL_SERVICES } from "../../src/emulator/services";
import { DEFAULT_ESTATE } from "../../src/emulator/default-estate";
import { PROJECT_ROOT } from "../../src/platform/version";

// Inside the project, as the build's is: the generated code requires Ajv's runtime from node_modules.
const dir = mkdtempSync(join(PROJECT_ROOT, "dist", ".test-seed-validator-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const schema = seedSchema(LOCAL_SERVICES);
const SEEDS: Record<string, unknown> = {
  "the dev estate": resolveRelativeTimes(parse(readFileSync(DEFAULT_ESTATE, "utf8")), Date.now()),
  "a server name that is a number": { sql: { servers: [{ name: 3 }] } },
  "an unknown section": { sqll: {} },
  "a fault status out of range": { faults: { rules: [{ match: "x", status: 302 }] } },
  "a page size of zero": { emulator: { pageSize: 0 } },
};

const verdict = (v: ValidateFunction, seed: unknown) => ({
  valid: v(seed),
  errors: (v.errors ?? []).map((e) => [e.instancePath, e.keyword, e.message]),
});

describe("the seed validator the build compiles", () => {
  it("judges seeds exactly as the validator compiled at run time", () => {
    const path = writeSeedValidator(dir, schema, SEED_AJV_OPTIONS);
    const generated = require(path) as { schemaDigest: string; validate: ValidateFunction };
    expect(generated.schemaDigest).toBe(seedSchemaDigest(schema));
    const compiled = new Ajv(SEED_AJV_OPTIONS).compile(schema);
    for (const [name, seed] of Object.entries(SEEDS)) {
      expect(verdict(generated.validate, seed), name).toEqual(verdict(compiled, seed));
    }
    expect(verdict(compiled, SEEDS["the dev estate"]).valid).toBe(true);
    expect(verdict(compiled, SEEDS["a server name that is a number"]).valid).toBe(false);
  });

  it("is the build's for today's schema (npm run build wrote it after tsc), and is used for no other schema", () => {
    const built = join(PROJECT_ROOT, "dist", "src", "emulator", "seed-validator.generated.js");
    expect((require(built) as { schemaDigest: string }).schemaDigest).toBe(seedSchemaDigest(schema));
    // The sources run here, beside no generated module: every schema compiles at run time.
    expect(precompiledSeedValidator(seedSchemaDigest(schema))).toBeUndefined();
    expect(seedSchemaDigest(seedSchema(LOCAL_SERVICES.slice(1)))).not.toBe(seedSchemaDigest(schema));
  });
});
