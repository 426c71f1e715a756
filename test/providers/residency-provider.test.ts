import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamicResourceDriver, PROJECT_ROOT, ProviderPlugin, UNKNOWN } from "../helpers/provider-plugin";

/**
 * The Residency resource (`pulumi-nodejs:dynamic/residency:Residency`) through the real
 * dynamic-provider plugin, as the engine drives it: it carries the stack's residency section into
 * the stack, checked with the stack file's schema, and calls no API.
 */
const TYPE = "pulumi-nodejs:dynamic/residency:Residency";
const compiled = () => require(join(PROJECT_ROOT, "dist/providers/index.js")) as { providerText(name: "residency"): string };

let plugin: ProviderPlugin;
let r: DynamicResourceDriver;
let text: string;

beforeAll(async () => {
  // No endpoint at all: nothing may be called.
  plugin = await ProviderPlugin.start();
  await plugin.configure();
  text = compiled().providerText("residency");
  r = new DynamicResourceDriver(plugin, text, TYPE, "residency");
});
afterAll(() => plugin?.close());

describe("Residency through the dynamic-provider plugin", () => {
  const inputs = { allowedCountries: ["US", "nl"], sites: [{ name: "backup-dc", address: "Dam 1, 1012 JS Amsterdam" }] };

  it("stores a small text that loads the provider from dist/", () => {
    expect(text.length).toBeLessThanOrEqual(1024);
    expect(text).toContain("dist/providers/provider-entry.js");
    expect(text).not.toContain("STATIC_KEY_SCHEMAS");
  });

  it("Check: the stack file's schema; unknown values are judged once known", async () => {
    expect(await r.check(inputs)).toEqual({ inputs, failures: [] });
    const bad = await r.check({ allowedCountries: ["Netherlands"], sites: [{ name: "x" }], extra: true });
    expect(bad.failures.map((f) => f.property).sort()).toEqual(["allowedCountries[0]", "extra", "sites[0]"]);
    expect((await r.check({ allowedCountries: [] })).failures.map((f) => f.property)).toEqual(["allowedCountries"]);
    expect((await r.check({ allowedCountries: UNKNOWN, sites: [] })).failures).toEqual([]);
  });

  it("Create, Read, Diff, Update, Delete: the section as outputs (codes upper-cased), no cloud object", async () => {
    const created = await r.create(inputs);
    expect(created).toEqual({
      id: "stackwarden-residency",
      properties: { allowedCountries: ["US", "NL"], sites: [{ name: "backup-dc", address: "Dam 1, 1012 JS Amsterdam" }] },
    });
    const read = await r.read(created.id, created.properties);
    expect(read).toEqual({ id: created.id, properties: created.properties, inputs: created.properties });
    expect(await r.diff(created.id, created.properties, inputs)).toMatchObject({ changes: "none", replaces: [] });
    const onlyUs = { ...inputs, allowedCountries: ["US"] };
    expect(await r.diff(created.id, created.properties, onlyUs)).toMatchObject({ changes: "some", replaces: [] });
    expect((await r.update(created.id, created.properties, onlyUs)).properties).toEqual({
      allowedCountries: ["US"],
      sites: inputs.sites,
    });
    await r.delete(created.id, created.properties);
  });

  it("the plugin is still up and logged nothing", () => {
    expect(plugin.running).toBe(true);
    expect(plugin.stderr.trim()).toBe("");
  });
});
