import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSeedFile, parseSeed } from "../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../src/emulator/services";
import { YamlInputError } from "../../src/platform/yaml/located-yaml";
import { seedFromYaml, startTestEmulator } from "../helpers/emulator";

const dir = mkdtempSync(join(tmpdir(), "sw-seed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function seedError(text: string): YamlInputError {
  try {
    parseSeed("estate.yaml", text, LOCAL_SERVICES);
  } catch (e) {
    expect(e).toBeInstanceOf(YamlInputError);
    return e as YamlInputError;
  }
  throw new Error("expected the seed to be refused");
}

describe("seed files", () => {
  it("a YAML syntax error names the file, line and column", () => {
    const e = seedError("emulator:\n  pageSize: 5\nfaults:\n  rules:\n    - status: [1\n");
    expect(e.file).toBe("estate.yaml");
    expect(e.line).toBeGreaterThanOrEqual(5);
    expect(e.column).toBeGreaterThanOrEqual(1);
    expect(e.message).toMatch(new RegExp(`^estate\\.yaml:${e.line}:${e.column}: invalid YAML: `));
    expect(e.message).not.toContain("\n");
  });

  it("tabs used as indentation are located", () => {
    const e = seedError("emulator:\n\tpageSize: 5\n");
    expect([e.line, e.column]).toEqual([2, 1]);
    expect(e.message).toContain("Tabs are not allowed");
  });

  it("an unknown section is named, at its key", () => {
    const e = seedError("emulator:\n  pageSize: 5\nimdss:\n  tenantId: x\n");
    expect(e.message).toBe("estate.yaml:3:1: imdss: unknown key");
  });

  it("an unknown key inside a service section is named with its path", () => {
    const e = seedError("imds:\n  tenantId: t\n  bogus: 1\n");
    expect([e.line, e.column, e.keyPath, e.problem]).toEqual([3, 3, "imds.bogus", "unknown key"]);
    const r = seedError("faults:\n  rules:\n    - status: 503\n      ratio: 0.5\n");
    expect(r.message).toBe("estate.yaml:4:7: faults.rules[0].ratio: unknown key");
  });

  it("a wrong type, a value out of range and a missing key are located at the value", () => {
    expect(seedError("faults:\n  rules:\n    - status: 503\n      rate: high\n").message).toBe(
      "estate.yaml:4:13: faults.rules[0].rate: must be number",
    );
    expect(seedError("emulator:\n  pageSize: 0\n").message).toBe("estate.yaml:2:13: emulator.pageSize: must be >= 1");
    expect(seedError("imds:\n  userIdentities:\n    - clientId: a\n").message).toBe(
      'estate.yaml:3:7: imds.userIdentities[0]: missing required key "objectId"',
    );
  });

  it("duplicate keys are refused", () => {
    const e = seedError("emulator:\n  pageSize: 5\n  pageSize: 6\n");
    expect([e.line, e.column]).toEqual([3, 3]);
    expect(e.problem).toContain("unique");
  });

  it("a document that is not a mapping is refused; an empty one is an empty seed", () => {
    expect(seedError("- a\n- b\n").message).toBe("estate.yaml:1:1: a seed file must be a mapping of sections");
    expect(parseSeed("empty.yaml", "", LOCAL_SERVICES)).toEqual({});
    expect(parseSeed("comments.yaml", "# nothing yet\n", LOCAL_SERVICES)).toEqual({});
  });

  it("loadSeedFile names a missing file, and reports errors with the file's path", () => {
    expect(() => loadSeedFile(join(dir, "missing.yaml"), LOCAL_SERVICES)).toThrow(
      `${join(dir, "missing.yaml")}: cannot read the seed file (ENOENT)`,
    );
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "emulator:\n  pageSize: 5\n  tokenTtl: 30\n");
    expect(() => loadSeedFile(bad, LOCAL_SERVICES)).toThrow(`${bad}:3:3: emulator.tokenTtl: unknown key`);
  });

  it("a valid seed shapes what the emulator serves", async () => {
    const t = await startTestEmulator({
      seed: seedFromYaml(`
emulator:
  tokenTtlSeconds: 90
faults:
  seed: 3
  maxConsecutive: 1
imds:
  tenantId: aaaaaaaa-0000-0000-0000-000000000001
  compute:
    name: seeded-vm
    location: westeurope
`),
    });
    try {
      expect(t.emu.settings.tokenTtlSeconds).toBe(90);
      expect(t.emu.faults.settings).toMatchObject({ seed: 3, maxConsecutive: 1, rules: [] });
      const get = async (p: string) =>
        (await fetch(`${t.url}${p}`, { headers: { Metadata: "true" } })).json() as Promise<Record<string, any>>;
      const instance = await get("/metadata/instance?api-version=2020-10-01");
      expect(instance.compute.name).toBe("seeded-vm");
      expect(instance.compute.location).toBe("westeurope");
      expect(instance.compute.vmSize).toBe("Standard_D2s_v5"); // unseeded fields keep the default VM's values
      expect((await get("/metadata/identity/info?api-version=2020-10-01")).tenantId).toBe("aaaaaaaa-0000-0000-0000-000000000001");
      expect((await get("/metadata/identity/oauth2/token?api-version=2020-10-01&resource=r")).expires_in).toBe("90");
    } finally {
      await t.close();
    }
  });

  it("a seed with no system identity and one user identity answers with that identity", async () => {
    const t = await startTestEmulator({
      seed: seedFromYaml("imds:\n  systemIdentity: null\n  userIdentities:\n    - { clientId: only-one, objectId: obj-1 }\n"),
    });
    try {
      const res = await fetch(`${t.url}/metadata/identity/oauth2/token?api-version=2020-10-01&resource=r`, {
        headers: { Metadata: "true" },
      });
      expect(((await res.json()) as { client_id: string }).client_id).toBe("only-one");
    } finally {
      await t.close();
    }
  });
});
