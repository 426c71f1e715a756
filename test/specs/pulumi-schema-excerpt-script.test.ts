import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pulumi-cli";

// scripts/pulumi-schema-excerpt.js refreshes specs/pulumi-*/schema-excerpt.json from a provider's full
// schema.json (SOURCES.md). An excerpt is itself a schema document, so cutting the same resources out of
// it must give it back byte for byte: the refresh path (JSON in, transitive types, sorted keys) is
// exercised without the providers' schemas, which are not in this repository.

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, "scripts", "pulumi-schema-excerpt.js");
const tmp = mkdtempSync(join(tmpdir(), "schema-excerpt-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

it.each(["pulumi-azure-native", "pulumi-azure"])("an excerpt of specs/%s/schema-excerpt.json by its resources.txt is that file", async (provider) => {
  const dir = join(REPO_ROOT, "specs", provider);
  const committed = readFileSync(join(dir, "schema-excerpt.json"), "utf8");
  const out = join(tmp, `${provider}.json`);
  const r = await run(process.execPath, [SCRIPT, join(dir, "schema-excerpt.json"), join(dir, "resources.txt"), out]);
  expect(r.stdout).toMatch(/\d+ resources, \d+ types/);
  expect(readFileSync(out, "utf8")).toBe(committed);
});

it("keeps only the types a resource reaches, through refs in types too", async () => {
  const schema = {
    name: "demo",
    version: "1.2.3",
    resources: {
      "demo:m:A": { description: "long examples", inputProperties: { x: { $ref: "#/types/demo:m:X" } }, properties: {}, requiredInputs: ["x"] },
      "demo:m:B": { inputProperties: { z: { $ref: "#/types/demo:m:Z" } }, properties: {} },
    },
    types: {
      "demo:m:X": { type: "object", properties: { y: { type: "array", items: { $ref: "#/types/demo:m:Y" } } } },
      "demo:m:Y": { type: "string", enum: [{ value: "On" }] },
      "demo:m:Z": { type: "object" },
    },
  };
  writeFileSync(join(tmp, "schema.json"), JSON.stringify(schema));
  writeFileSync(join(tmp, "tokens.txt"), "# just A\ndemo:m:A\n");
  await run(process.execPath, [SCRIPT, join(tmp, "schema.json"), join(tmp, "tokens.txt"), join(tmp, "out.json"), "--description", "from a test"]);
  const out = JSON.parse(readFileSync(join(tmp, "out.json"), "utf8"));
  expect(out).toEqual({
    name: "demo",
    version: "1.2.3",
    description: "from a test",
    resources: { "demo:m:A": { inputProperties: schema.resources["demo:m:A"].inputProperties, properties: {}, requiredInputs: ["x"] } },
    types: { "demo:m:X": schema.types["demo:m:X"], "demo:m:Y": schema.types["demo:m:Y"] },
  });
});

it("refuses a token or a referenced type the schema lacks, in one line, exit 1, writing nothing", async () => {
  writeFileSync(join(tmp, "bad.json"), JSON.stringify({ name: "demo", version: "1.0.0", resources: { "demo:m:A": { inputProperties: { x: { $ref: "#/types/demo:m:Gone" } } } }, types: {} }));
  for (const [tokens, message] of [
    ["demo:m:Missing\n", "pulumi-schema-excerpt: resource demo:m:Missing is not in the schema\n"],
    ["demo:m:A\n", "pulumi-schema-excerpt: type demo:m:Gone (referenced by the excerpt) is not in the schema\n"],
  ]) {
    writeFileSync(join(tmp, "bad-tokens.txt"), tokens);
    const out = join(tmp, "never.json");
    const err = await run(process.execPath, [SCRIPT, join(tmp, "bad.json"), join(tmp, "bad-tokens.txt"), out]).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toBe(message);
    expect(() => readFileSync(out)).toThrow();
  }
});
