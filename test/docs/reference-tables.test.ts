import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fillGeneratedSections, GENERATED_SECTIONS, REGENERATE_COMMAND } from "../../src/interfaces/cli/reference/reference-document";
import { ENVIRONMENT_VARIABLES } from "../../src/platform/settings/environment-variables";
import { PROJECT_ROOT } from "../../src/platform/version";

// docs/reference.md's tables are generated from the code's declarations (scripts/reference-tables.js):
// this is the CI check that they cannot drift. The environment registry is complete: every
// STACKWARDEN_ variable the source names is in it.

const REFERENCE = join(PROJECT_ROOT, "docs", "reference.md");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("docs/reference.md", () => {
  it("is what the generator makes of the code's declarations today", async () => {
    const checkedIn = readFileSync(REFERENCE, "utf8");
    const generated = await fillGeneratedSections(checkedIn);
    expect(
      checkedIn === generated,
      `docs/reference.md differs from the code's declarations: run \`${REGENERATE_COMMAND}\` and commit it`,
    ).toBe(true);
  });

  it("names no path of the machine that generated it (a default shows as the package's file)", () => {
    const text = readFileSync(REFERENCE, "utf8");
    expect(text.includes(PROJECT_ROOT), PROJECT_ROOT).toBe(false);
    expect(text).not.toMatch(/`\/(?:work|root|home|tmp)\//);
  });

  it("has a filled section for each generated table", () => {
    const text = readFileSync(REFERENCE, "utf8");
    for (const name of Object.keys(GENERATED_SECTIONS)) {
      const section = text.slice(text.indexOf(`<!-- generated: ${name} `), text.indexOf(`<!-- end generated: ${name} -->`));
      expect(section, name).toMatch(/\n\| .* \|\n\|---/);
    }
  });

  it("fails on a table edited by hand (one cell changed)", async () => {
    const text = readFileSync(REFERENCE, "utf8").replace("| `SW_USAGE` | 1 | no |", "| `SW_USAGE` | 2 | no |");
    expect(await fillGeneratedSections(text)).not.toBe(text);
  });
});

describe("the environment-variable registry", () => {
  const listed = new Set(ENVIRONMENT_VARIABLES.flatMap((v) => v.names));

  it("lists every STACKWARDEN_ variable the source names (a prefix, STACKWARDEN_PROBE_…, is its pattern's)", () => {
    const registry = join(PROJECT_ROOT, "src", "platform", "settings", "environment-variables.ts");
    const named = new Set(
      sourceFiles(join(PROJECT_ROOT, "src"))
        .filter((f) => f !== registry)
        .flatMap((f) => [...readFileSync(f, "utf8").matchAll(/\bSTACKWARDEN_[A-Z0-9_]*[A-Z0-9]\b/g)].map((m) => m[0])),
    );
    const missing = [...named].filter((n) => !listed.has(n));
    expect(missing, "add them to src/platform/settings/environment-variables.ts").toEqual([]);
  });

  it("lists the state, watcher and Pulumi variables", () => {
    for (const name of [
      "STACKWARDEN_STATE_URL",
      "STACKWARDEN_STATE_ACCOUNT_KEY",
      "STACKWARDEN_STATUS_TOKEN",
      "STACKWARDEN_NOTIFY_SECRET",
      "STACKWARDEN_LEASE_SECONDS",
      "STACKWARDEN_HOME",
    ])
      expect(listed.has(name), name).toBe(true);
  });

  it("gives each variable a meaning", () => {
    for (const v of ENVIRONMENT_VARIABLES) expect(v.meaning.length, v.names.join(", ")).toBeGreaterThan(20);
  });
});
