import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSeed } from "../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../src/emulator/services";
import { keyVaultInitialState } from "../../src/emulator/services/keyvault/keyvault-state";
import { toVersionShape } from "../../src/emulator/kit/version-shape";
import {
  protectorResource as fullProtector,
  serverKeyResources as allServerKeys,
  type KeyCustodyServer,
} from "../../src/emulator/services/sql/resources/server-key-custody";
import { sqlInitialState } from "../../src/emulator/services/sql/sql-local";
import type { KeyVaultSeed } from "../../src/emulator/services/keyvault/seed-schema";
import type { SqlSeed } from "../../src/emulator/services/sql/sql-local";
import { YamlInputError } from "../../src/platform/yaml/located-yaml";

/** The protector and server keys as the front door answers them at `version`. */
const protectorResource = (s: KeyCustodyServer, version: string) =>
  toVersionShape("Microsoft.Sql", "Microsoft.Sql/servers/encryptionProtector", version, fullProtector(s));
const serverKeyResources = (s: KeyCustodyServer, version: string) =>
  allServerKeys(s).map((k) => toVersionShape("Microsoft.Sql", "Microsoft.Sql/servers/keys", version, k));

/** The seed's key-custody parts: servers' protectors and keys, the keyvault section. */

function seedError(text: string): YamlInputError {
  try {
    parseSeed("estate.yaml", text, LOCAL_SERVICES);
  } catch (e) {
    expect(e).toBeInstanceOf(YamlInputError);
    return e as YamlInputError;
  }
  throw new Error("expected the seed to be refused");
}

const parse = (text: string) => parseSeed("estate.yaml", text, LOCAL_SERVICES);
const URI = "https://kv-a.vault.azure.net/keys/tde/0123456789abcdef0123456789abcdef";

describe("servers' encryption protectors and keys", () => {
  it("a protector's keyUri makes it customer-managed and joins the keys; none is service-managed", () => {
    const seed = parse(`
sql:
  servers:
    - { name: srv-a, resourceGroup: rg, encryptionProtector: { keyUri: "${URI}", autoRotationEnabled: true } }
    - { name: srv-b, resourceGroup: rg, encryptionProtector: {} }
    - { name: srv-c, resourceGroup: rg, keys: [{ uri: "${URI}", creationDate: now-10d, thumbprint: 00112233445566778899AABBCCDDEEFF00112233 }] }
`);
    const state = sqlInitialState(seed.sql as SqlSeed);
    const [a, b, c] = state.servers;
    expect(a.encryptionProtector).toEqual({ keyName: "kv-a_tde_0123456789abcdef0123456789abcdef", autoRotationEnabled: true });
    expect(a.keys).toHaveLength(1);
    expect(protectorResource(a, "2021-11-01").properties).toMatchObject({
      serverKeyType: "AzureKeyVault",
      uri: URI,
      autoRotationEnabled: true,
    });
    expect(protectorResource(b, "2021-11-01").properties).toEqual({
      serverKeyName: "ServiceManaged",
      serverKeyType: "ServiceManaged",
      autoRotationEnabled: false,
    });
    expect(protectorResource(c, "2015-05-01-preview").properties).toEqual({
      serverKeyName: "ServiceManaged",
      serverKeyType: "ServiceManaged",
    });
    const keys = serverKeyResources(c, "2015-05-01-preview");
    expect(keys[1].properties).toMatchObject({ thumbprint: "00112233445566778899AABBCCDDEEFF00112233" });
    expect(Date.now() - Date.parse(keys[1].properties!.creationDate!)).toBeGreaterThan(9 * 86_400_000);
  });

  it("state saved before key custody existed reads as service-managed, with only the service-managed key", () => {
    const old = { subscriptionId: "s", resourceGroup: "rg", name: "srv", location: "East US" };
    expect(protectorResource(old, "2023-08-01").properties).toMatchObject({ serverKeyType: "ServiceManaged" });
    expect(serverKeyResources(old, "2023-08-01").map((k) => k.name)).toEqual(["ServiceManaged"]);
  });

  it("a key URI that is not a Key Vault key's, an unknown key and a duplicate key are refused, located", () => {
    expect(
      seedError(
        `sql:\n  servers:\n    - name: srv\n      resourceGroup: rg\n      encryptionProtector:\n        keyUri: http://kv-a.vault.azure.net/keys/tde\n`,
      ).message,
    ).toMatch(/^estate\.yaml:6:17: sql\.servers\[0\]\.encryptionProtector\.keyUri: must match pattern/);
    expect(
      seedError(`sql:\n  servers:\n    - name: srv\n      resourceGroup: rg\n      encryptionProtector: { serverKeyType: AzureKeyVault }\n`)
        .message,
    ).toBe("estate.yaml:5:30: sql.servers[0].encryptionProtector.serverKeyType: unknown key");
    expect(seedError(`sql:\n  servers:\n    - name: srv\n      resourceGroup: rg\n      keys: [{ thumbprint: AB }]\n`).message).toMatch(
      /^estate\.yaml:5:\d+: sql\.servers\[0\]\.keys\[0\]/,
    );
    const dup = parse(
      `sql:\n  servers:\n    - { name: srv, resourceGroup: rg, keys: [{ uri: "${URI}" }, { uri: "${URI.replace("kv-a", "KV-A").replace("abcdef", "ABCDEF")}" }] }\n`,
    );
    expect(() => sqlInitialState(dup.sql as SqlSeed)).toThrow(
      /^sql\.servers\[0\]\.keys\[1\]\.uri: the key .* is declared twice on this server \(also at sql\.servers\[0\]\.keys\[0\]\.uri\)$/,
    );
  });
});

describe("the keyvault section", () => {
  it("fills in the documented defaults and resolves relative dates", () => {
    const now = Date.now();
    const seed = parse(`
keyvault:
  vaults:
    - name: kv-defaults
      resourceGroup: rg-k
      keys:
        - { name: rsa }
        - { name: ec, kty: EC, expirationDate: now+365d, activationDate: now-1d }
`);
    const state = keyVaultInitialState(seed.keyvault as KeyVaultSeed, now);
    const [v] = state.vaults;
    expect(v).toMatchObject({
      subscriptionId: "00000000-0000-0000-0000-000000000000",
      tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47",
      location: "eastus",
      sku: "standard",
      enableSoftDelete: true,
      softDeleteRetentionInDays: 90,
      enablePurgeProtection: false,
      publicNetworkAccess: "Enabled",
    });
    expect(v.keys[0]).toMatchObject({
      kty: "RSA",
      keySize: 2048,
      enabled: true,
      keyOps: ["encrypt", "decrypt", "sign", "verify", "wrapKey", "unwrapKey"],
    });
    expect(v.keys[0].version).toMatch(/^[0-9a-f]{32}$/);
    expect(v.keys[0]).not.toHaveProperty("exp");
    expect(v.keys[1]).toMatchObject({ kty: "EC", curveName: "P-256", keyOps: ["sign", "verify"] });
    expect(Math.abs(v.keys[1].exp! - Math.floor(now / 1000) - 365 * 86_400)).toBeLessThan(60);
    expect(keyVaultInitialState(seed.keyvault as KeyVaultSeed, now).vaults[0].keys[0].version).toBe(v.keys[0].version);
  });

  it("refuses, located, what the schema can say: names, sizes, curves, retention, dates, unknown keys", () => {
    const kv = (vault: string) => `keyvault:\n  vaults:\n    - ${vault}\n`;
    expect(seedError(kv("{ name: kv--double, resourceGroup: rg }")).message).toMatch(
      /^estate\.yaml:3:\d+: keyvault\.vaults\[0\]\.name: must match pattern/,
    );
    expect(seedError(kv("{ name: 1kv, resourceGroup: rg }")).problem).toMatch(/must match pattern/);
    expect(seedError(kv("{ name: kv-a, resourceGroup: rg, softDeleteRetentionInDays: 120 }")).message).toMatch(
      /keyvault\.vaults\[0\]\.softDeleteRetentionInDays: must be <= 90$/,
    );
    expect(seedError(kv("{ name: kv-a, resourceGroup: rg, keys: [{ name: k, keySize: 1024 }] }")).keyPath).toBe(
      "keyvault.vaults[0].keys[0].keySize",
    );
    expect(seedError(kv("{ name: kv-a, resourceGroup: rg, keys: [{ name: k, kty: oct }] }")).problem).toMatch(
      /must be one of "RSA", "RSA-HSM", "EC", "EC-HSM"/,
    );
    expect(seedError(kv("{ name: kv-a, resourceGroup: rg, keys: [{ name: k, expirationDate: 2031-01-01 }] }")).keyPath).toBe(
      "keyvault.vaults[0].keys[0].expirationDate",
    );
    expect(seedError(kv("{ name: kv-a, resourceGroup: rg, keys: [{ name: k, expirationDate: now+2y }] }")).problem).toMatch(
      /must match pattern/,
    );
    expect(seedError(kv("{ name: kv-a, resourceGroup: rg, keys: [{ name: k, version: 12 }] }")).problem).toBe("must be string");
    expect(seedError(kv("{ name: kv-a, resourceGroup: rg, keys: [{ name: k, nbf: 1 }] }")).message).toMatch(
      /keyvault\.vaults\[0\]\.keys\[0\]\.nbf: unknown key$/,
    );
    expect(seedError(kv("{ name: kv-a, resourceGroup: rg, readDenied: [] }")).keyPath).toBe("keyvault.vaults[0].readDenied");
    expect(
      seedError(
        kv(
          "{ name: kv-a, resourceGroup: rg, keys: [{ name: k, rotationPolicy: { lifetimeActions: [{ action: rotate, timeBeforeExpiry: 30 days }] } }] }",
        ),
      ).keyPath,
    ).toBe("keyvault.vaults[0].keys[0].rotationPolicy.lifetimeActions[0].timeBeforeExpiry");
  });

  it("refuses, naming the key path, what only the state can check", () => {
    const state = (vaults: string) => () => keyVaultInitialState(parse(`keyvault:\n  vaults:\n${vaults}`).keyvault as KeyVaultSeed);
    expect(state("    - { name: kv-a, resourceGroup: rg }\n    - { name: KV-A, resourceGroup: rg2 }\n")).toThrow(
      'keyvault.vaults[1].name: vault "KV-A" is declared twice (also at keyvault.vaults[0]); vault names are global',
    );
    expect(state("    - { name: kv-a, resourceGroup: rg, enableSoftDelete: false, enablePurgeProtection: true }\n")).toThrow(
      /^keyvault\.vaults\[0\]\.enablePurgeProtection: purge protection needs soft delete/,
    );
    expect(state("    - { name: kv-a, resourceGroup: rg, keys: [{ name: k }, { name: K }] }\n")).toThrow(
      /^keyvault\.vaults\[0\]\.keys\[1\]\.name: key "K" is declared twice/,
    );
    expect(state("    - { name: kv-a, resourceGroup: rg, keys: [{ name: k, kty: EC, keySize: 2048 }] }\n")).toThrow(
      "keyvault.vaults[0].keys[0].keySize: an EC key has no keySize; give its curveName",
    );
    expect(state("    - { name: kv-a, resourceGroup: rg, keys: [{ name: k, curveName: P-384 }] }\n")).toThrow(
      /keys\[0\]\.curveName: an RSA key has no curve/,
    );
    expect(state("    - { name: kv-a, resourceGroup: rg, keys: [{ name: k, kty: RSA-HSM }] }\n")).toThrow(
      /RSA-HSM keys need a premium vault/,
    );
    expect(state("    - { name: kv-a, resourceGroup: rg, keys: [{ name: k, activationDate: now+2d, expirationDate: now+1d }] }\n")).toThrow(
      /keys\[0\]\.expirationDate: the key would expire before it becomes active/,
    );
  });
});

describe("the estates", () => {
  it.each([
    ["stacks/dev.estate.yaml", join(__dirname, "../../stacks/dev.estate.yaml")],
    ["test/fixtures/estates/key-custody.estate.yaml", join(__dirname, "../fixtures/estates/key-custody.estate.yaml")],
  ])("%s loads and builds its state", (_name, path) => {
    const seed = parseSeed(path, readFileSync(path, "utf8"), LOCAL_SERVICES);
    const sql = sqlInitialState(seed.sql as SqlSeed);
    const kv = keyVaultInitialState(seed.keyvault as KeyVaultSeed);
    // Every customer-managed protector points at a key of a vault of the estate, by name and version.
    for (const s of sql.servers) {
      const uri = protectorResource(s, "2015-05-01-preview").properties?.uri;
      if (!uri) continue;
      const [, vault, suffix, key, version] = /^https:\/\/([^.]+)\.(vault|managedhsm)\.azure\.net\/keys\/([^/]+)\/([0-9a-f]{32})$/.exec(
        uri,
      )!;
      const holders = suffix === "managedhsm" ? (kv.managedHsms ?? []) : kv.vaults;
      const k = holders.find((v) => v.name === vault)?.keys.find((x) => x.name === key);
      expect(k, `${s.name}: ${uri}`).toBeDefined();
      expect(k!.version).toBe(version);
    }
  });
});

describe("keyvault.managedHsms", () => {
  const hsms = (hsm: string) => `keyvault:\n  managedHsms:\n    - ${hsm}\n`;

  it("fills in the spec's defaults: soft delete always on, 90 days, purge protection on, Succeeded; HSM keys need no premium sku", () => {
    const now = Date.parse("2026-06-01T00:00:00Z");
    const state = keyVaultInitialState(
      parse(hsms("{ name: hsm-a, resourceGroup: rg, keys: [{ name: k, kty: RSA-HSM, keySize: 3072 }] }")).keyvault as KeyVaultSeed,
      now,
    );
    expect(state.vaults).toEqual([]);
    expect(state.managedHsms).toEqual([
      expect.objectContaining({
        name: "hsm-a",
        subscriptionId: "00000000-0000-0000-0000-000000000000",
        location: "eastus",
        sku: "Standard_B1",
        softDeleteRetentionInDays: 90,
        enablePurgeProtection: true,
        provisioningState: "Succeeded",
      }),
    ]);
    expect(state.managedHsms![0].keys[0]).toMatchObject({ name: "k", kty: "RSA-HSM", keySize: 3072, enabled: true });
  });

  it("refuses, located, what the schema can say: the spec's name pattern, retention, provisioning states, soft delete (immutable)", () => {
    expect(seedError(hsms("{ name: hsm--a, resourceGroup: rg }")).message).toMatch(
      /^estate\.yaml:3:\d+: keyvault\.managedHsms\[0\]\.name: must match pattern/,
    );
    expect(seedError(hsms("{ name: hsm-a, resourceGroup: rg, softDeleteRetentionInDays: 5 }")).message).toMatch(
      /keyvault\.managedHsms\[0\]\.softDeleteRetentionInDays: must be >= 7$/,
    );
    expect(seedError(hsms("{ name: hsm-a, resourceGroup: rg, provisioningState: Ready }")).problem).toMatch(
      /must be one of "Succeeded", "Provisioning"/,
    );
    expect(seedError(hsms("{ name: hsm-a, resourceGroup: rg, enableSoftDelete: false }")).message).toMatch(
      /keyvault\.managedHsms\[0\]\.enableSoftDelete: unknown key$/,
    );
    expect(seedError(hsms("{ name: hsm-a, resourceGroup: rg, keys: [{ name: k, keySize: 1024 }] }")).keyPath).toBe(
      "keyvault.managedHsms[0].keys[0].keySize",
    );
  });

  it("refuses, naming the key path, an HSM declared twice and a key declared twice in an HSM", () => {
    const state = (text: string) => () => keyVaultInitialState(parse(`keyvault:\n  managedHsms:\n${text}`).keyvault as KeyVaultSeed);
    expect(state("    - { name: hsm-a, resourceGroup: rg }\n    - { name: HSM-A, resourceGroup: rg2 }\n")).toThrow(
      'keyvault.managedHsms[1].name: managed HSM "HSM-A" is declared twice (also at keyvault.managedHsms[0]); HSM names are global',
    );
    expect(state("    - { name: hsm-a, resourceGroup: rg, keys: [{ name: k }, { name: K }] }\n")).toThrow(
      'keyvault.managedHsms[0].keys[1].name: key "K" is declared twice in managed HSM "hsm-a"',
    );
  });
});
