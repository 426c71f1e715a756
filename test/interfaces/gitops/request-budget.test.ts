import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allRules } from "../../../src/domain/compliance/registry";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli, stackDir } from "../cli/cli-harness";

/**
 * The ARM requests each command sends per database and per location, counted by the emulator:
 * the figures docs/scale-out.md sizes runners and subscriptions with. Token requests to IMDS are
 * not ARM requests and are left out.
 */
const SUB = "00000000-0000-0000-0000-0000000000b9";
const DATABASES = 12;
const LOCATIONS = ["eastus", "westeurope"];
const CHANGED = 3; // the first three start Disabled

const names = Array.from({ length: DATABASES }, (_, i) => `db${String(i).padStart(2, "0")}`);
const SEED = `
emulator:
  pageSize: 100
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 300
  servers:
    - name: sql-budget
      resourceGroup: rg-budget
      databases:
${names.map((n, i) => `        - { name: ${n}, transparentDataEncryption: ${i < CHANGED ? "Disabled" : "Enabled"} }`).join("\n")}
batchai:
  subscriptionId: ${SUB}
  usages:
${LOCATIONS.map((l) => `    - location: ${l}\n      usages:\n        - { name: cores, localizedName: Total Regional Cores, currentValue: 1, limit: 100 }`).join("\n")}
`;
/**
 * The rules whose reads these budgets count. A rule registered later budgets its own reads in its own
 * test: it is disabled in these stacks (`check` gathers only the fact kinds an enabled rule names), so
 * it changes no figure here.
 */
const BUDGETED_RULES = new Set([
  "sql-tde-enabled",
  "sql-tier-advisor-drift",
  "batch-quota-headroom",
  "artifact-signature-clean",
  "artifact-packed",
  "post-deploy-probes",
  "data-residency",
  "sql-tde-customer-managed-key",
  "tde-key-vault-recoverable",
  "tde-key-validity",
  "tde-key-access",
]);

/** The stack file's `stackwarden:policies` lines that disable every registered rule these budgets do not count. */
function onlyBudgetedRules(): string[] {
  const others = allRules().filter((r) => !BUDGETED_RULES.has(r.id));
  return others.length ? ["  stackwarden:policies:", ...others.map((r) => `    ${r.id}: { enforcementLevel: disabled }`)] : [];
}

const STACK = [
  "config:",
  `  stackwarden:subscriptionId: ${SUB}`,
  "  stackwarden:databases:",
  ...names.map((n) => `    - { resourceGroup: rg-budget, server: sql-budget, database: ${n}, transparentDataEncryption: Enabled }`),
  ...onlyBudgetedRules(),
  "  stackwarden:batch:",
  `    locations: [${LOCATIONS.join(", ")}]`,
  "",
].join("\n");

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator({ seed: seedFromYaml(SEED) });
  dir = stackDir({ "Pulumi.budget.yaml": STACK });
});
afterAll(async () => {
  await emu.close();
});

interface Counts {
  tdeGet: number;
  tdePut: number;
  scanPolls: number;
  advisorLists: number;
  usageLists: number;
  /** EncryptionProtectors_Get: the key-custody rules read one per server. */
  protectorGets: number;
  /** Databases_ListByServer pages: the key-custody rules list each server's databases (whether each has its own TDE protector). */
  databaseLists: number;
  other: number;
}

/** Runs a command and counts the ARM requests it sent, by kind. */
async function count(...argv: string[]): Promise<{ code: number; counts: Counts }> {
  await fetch(`${emu.url}/_emulator/stats/reset`, { method: "POST" });
  const r = await runCli([...argv, "--config", "Pulumi.budget.yaml"], emu.url, dir);
  const stats = (await (await fetch(`${emu.url}/_emulator/stats`)).json()) as { byRoute: Record<string, number> };
  const counts: Counts = {
    tdeGet: 0,
    tdePut: 0,
    scanPolls: 0,
    advisorLists: 0,
    usageLists: 0,
    protectorGets: 0,
    databaseLists: 0,
    other: 0,
  };
  for (const [route, n] of Object.entries(stats.byRoute)) {
    if (route.includes(" /metadata/")) continue; // IMDS tokens
    if (route.endsWith("/operationResults")) counts.scanPolls += n;
    else if (/transparentDataEncryption/.test(route) && route.startsWith("GET ")) counts.tdeGet += n;
    else if (/transparentDataEncryption/.test(route) && route.startsWith("PUT ")) counts.tdePut += n;
    else if (/serviceTierAdvisors/.test(route)) counts.advisorLists += n;
    else if (/usages/i.test(route)) counts.usageLists += n;
    else if (/encryptionProtector/.test(route) && route.startsWith("GET ")) counts.protectorGets += n;
    else if (/^GET .*\/servers\/[^/]+\/databases$/.test(route)) counts.databaseLists += n;
    else counts.other += n;
  }
  return { code: r.code, counts };
}

describe("ARM requests per database", () => {
  it("plan: one TDE GET per database", async () => {
    const { code, counts } = await count("plan");
    expect(code).toBe(2);
    expect(counts).toEqual({
      tdeGet: DATABASES,
      tdePut: 0,
      scanPolls: 0,
      advisorLists: 0,
      usageLists: 0,
      protectorGets: 0,
      databaseLists: 0,
      other: 0,
    });
  });

  it("check (and check --planned): a TDE GET and an advisor list per database, a usage list per location, a protector GET and a database list per server", async () => {
    // The one server's protector is service-managed, and no database has its own: no vault or key to read.
    // Its 12 databases (and master) fit one page of the list (page size 100).
    const expected = {
      tdeGet: DATABASES,
      tdePut: 0,
      scanPolls: 0,
      advisorLists: DATABASES,
      usageLists: LOCATIONS.length,
      protectorGets: 1,
      databaseLists: 1,
      other: 0,
    };
    expect((await count("check")).counts).toEqual(expected);
    expect((await count("check", "--planned")).counts).toEqual(expected);
  });

  it("drift: a TDE GET and an advisor list per database, a protector GET and a database list per server, no usages", async () => {
    const { code, counts } = await count("drift");
    expect(code).toBe(2);
    expect(counts).toEqual({
      tdeGet: DATABASES,
      tdePut: 0,
      scanPolls: 0,
      advisorLists: DATABASES,
      usageLists: 0,
      protectorGets: 1,
      databaseLists: 1,
      other: 0,
    });
  });

  it("apply: the plan's GETs, one PUT per change, operationResults polls while each scan runs, one GET per change to confirm", async () => {
    const { code, counts } = await count("apply", "--yes", "--poll-interval", "100");
    expect(code).toBe(0);
    expect(counts.tdePut).toBe(CHANGED);
    expect(counts.tdeGet).toBe(DATABASES + CHANGED);
    // At least one poll per change; how many more depends on the scan's length over the poll interval.
    expect(counts.scanPolls).toBeGreaterThanOrEqual(CHANGED);
    expect({ ...counts, scanPolls: 0, tdeGet: 0, tdePut: 0 }).toEqual({
      tdeGet: 0,
      tdePut: 0,
      scanPolls: 0,
      advisorLists: 0,
      usageLists: 0,
      protectorGets: 0,
      databaseLists: 0,
      other: 0,
    });
  });
});

describe("ARM requests of check with stackwarden:residency", () => {
  const WORKSPACES = ["ws-a", "ws-b"];
  const RESIDENCY_SEED = `${SEED}
  workspaces:
${WORKSPACES.map((w) => `    - { resourceGroup: rg-budget-ml, name: ${w}, location: westeurope, clusters: [{ name: c1, vmSize: STANDARD_NC6 }], fileServers: [{ name: f1, vmSize: STANDARD_D14_V2 }] }`).join("\n")}
`;
  const RESIDENCY_STACK = [
    ...STACK.trimEnd().split("\n"),
    "    resourceGroups: [rg-budget-ml]",
    "  stackwarden:residency:",
    "    allowedCountries: [US, NL]",
    "",
  ].join("\n");

  it("shares each database's TDE GET with the placements and adds, per stack, a workspace list per resource group and a cluster and file server list per workspace", async () => {
    const residencyEmu = await startTestEmulator({ seed: seedFromYaml(RESIDENCY_SEED) });
    try {
      const residencyDir = stackDir({ "Pulumi.budget.yaml": RESIDENCY_STACK });
      const r = await runCli(["check", "--config", "Pulumi.budget.yaml"], residencyEmu.url, residencyDir, {
        STACKWARDEN_GEOCODING_ENDPOINT: `${residencyEmu.url}/geocoding`,
      });
      expect(r.err).toBe("");
      expect(r.code).toBe(3); // the seed's first databases are Disabled

      const { byRoute } = (await (await fetch(`${residencyEmu.url}/_emulator/stats`)).json()) as { byRoute: Record<string, number> };
      const sum = (re: RegExp) => Object.entries(byRoute).reduce((n, [route, c]) => (re.test(route) ? n + c : n), 0);
      expect(sum(/^GET .*transparentDataEncryption\/(current|\{[^}]+\})$/)).toBe(DATABASES);
      expect(sum(/^GET .*serviceTierAdvisors/)).toBe(DATABASES);
      expect(sum(/^GET .*\/usages$/i)).toBe(LOCATIONS.length);
      expect(sum(/^GET .*\/workspaces$/)).toBe(1);
      expect(sum(/^GET .*\/clusters$/)).toBe(WORKSPACES.length);
      expect(sum(/^GET .*\/fileServers$/)).toBe(WORKSPACES.length);
      // Geocoding is another service: one reverse geocode per distinct region (here westeurope, and eastus of the SQL server's location).
      expect(sum(/^GET \/geocoding\/reversegeocoding/)).toBeLessThanOrEqual(2);
    } finally {
      await residencyEmu.close();
    }
  });
});

describe("ARM requests of check with the key-custody rules", () => {
  const KC_SUB = "00000000-0000-0000-0000-0000000000c7";
  const SERVERS = 6;
  // Servers 0-3 share one key version in kv-shared; 4 uses another key of kv-shared; 5 a key of kv-other.
  const keyOf = (i: number) => (i < 4 ? ["kv-shared", "tde-a"] : i === 4 ? ["kv-shared", "tde-b"] : ["kv-other", "tde-c"]);
  const VERSION = "0123456789abcdef0123456789abcdef";
  // Each server's system-assigned identity: servers 0-4 reach kv-shared by its access policies, 5 kv-other (RBAC) by a role.
  const principal = (i: number) => `11111111-0000-4000-8000-0000000000${String(i).padStart(2, "0")}`;
  const KC_SEED = `
emulator:
  pageSize: 2
sql:
  subscriptionId: ${KC_SUB}
  servers:
${Array.from({ length: SERVERS }, (_, i) => {
  const [vault, key] = keyOf(i);
  return `    - name: sql-kc-${i}
      resourceGroup: rg-kc
      identity: { type: SystemAssigned, principalId: ${principal(i)} }
      encryptionProtector: { keyUri: https://${vault}.vault.azure.net/keys/${key}/${VERSION} }
      databases: [{ name: db-a, transparentDataEncryption: Enabled }, { name: db-b, transparentDataEncryption: Enabled }]`;
}).join("\n")}
keyvault:
  subscriptionId: ${KC_SUB}
  vaults:
    - { name: kv-decoy-1, resourceGroup: rg-decoys }
    - { name: kv-decoy-2, resourceGroup: rg-decoys }
    - name: kv-shared
      resourceGroup: rg-keys
      enablePurgeProtection: true
      accessPolicies:
${Array.from({ length: SERVERS - 1 }, (_, i) => `        - { objectId: ${principal(i)}, permissions: { keys: [get, wrapKey, unwrapKey] } }`).join("\n")}
      keys:
        - { name: tde-a, version: "${VERSION}", expirationDate: now+400d }
        - { name: tde-b, version: "${VERSION}", expirationDate: now+400d }
    - name: kv-other
      resourceGroup: rg-keys-2
      enablePurgeProtection: true
      enableRbacAuthorization: true
      keys: [{ name: tde-c, version: "${VERSION}", expirationDate: now+400d }]
authorization:
  roleAssignments:
    - { scope: /subscriptions/${KC_SUB}/resourceGroups/rg-keys-2/providers/Microsoft.KeyVault/vaults/kv-other, principalId: ${principal(5)}, roleDefinitionId: e147488a-f6f5-4113-8e2d-b22465e65bf6 }
    - { scope: /subscriptions/${KC_SUB}, principalId: ${principal(9)}, roleDefinitionId: acdd72a7-3385-48ef-bd42-f606fba81ae7 }
`;
  const KC_STACK = [
    "config:",
    `  stackwarden:subscriptionId: ${KC_SUB}`,
    "  stackwarden:databases:",
    ...Array.from({ length: SERVERS }, (_, i) =>
      ["db-a", "db-b"].map(
        (d) => `    - { resourceGroup: rg-kc, server: sql-kc-${i}, database: ${d}, transparentDataEncryption: Enabled }`,
      ),
    ).flat(),
    ...onlyBudgetedRules(),
    "",
  ].join("\n");

  it("one protector GET, one identity read and one database list per server, one vault listing per run, one GET per distinct vault and per distinct key version, one role-assignment list per RBAC vault and one GET per distinct role", async () => {
    const kcEmu = await startTestEmulator({ seed: seedFromYaml(KC_SEED) });
    try {
      const kcDir = stackDir({ "Pulumi.kc.yaml": KC_STACK });
      for (const command of ["check", "drift"]) {
        await fetch(`${kcEmu.url}/_emulator/stats/reset`, { method: "POST" });
        const r = await runCli([command, "--config", "Pulumi.kc.yaml"], kcEmu.url, kcDir);
        expect(r.err, command).toBe("");
        expect(r.code, command).toBe(0);
        const { byRoute } = (await (await fetch(`${kcEmu.url}/_emulator/stats`)).json()) as { byRoute: Record<string, number> };
        const sum = (re: RegExp) => Object.entries(byRoute).reduce((n, [route, c]) => (re.test(route) ? n + c : n), 0);
        expect(sum(/^GET .*\/encryptionProtector\//), command).toBe(SERVERS);
        // The listing pages (page size 2, four vaults): two requests, once for the whole run.
        expect(sum(/^GET \/subscriptions\/[^/]+\/providers\/Microsoft\.KeyVault\/vaults$/), command).toBe(2);
        expect(sum(/^GET .*\/vaults\/[^/]+$/), command).toBe(2);
        expect(sum(/^GET .*\/keys\/[^/]+\/versions\/[^/]+$/), command).toBe(3);
        expect(sum(/^GET .*transparentDataEncryption/), command).toBe(SERVERS * 2);
        // tde-key-access: Servers_Get for each server's identity (the vaults' access policies and firewall come with their GET);
        // kv-other uses RBAC: one unfiltered list at its scope, and each role it names read once (Reader, and the crypto role).
        expect(sum(/^GET .*\/servers\/[^/]+$/), command).toBe(SERVERS);
        expect(sum(/^GET .*\/roleAssignments$/), command).toBe(1);
        expect(sum(/^GET .*\/roleDefinitions\/[^/]+$/), command).toBe(2);
        // Whether each database has its own TDE protector (none here): each server's Databases_ListByServer,
        // two pages each (master and two databases, page size 2), and no Databases_Get.
        expect(sum(/^GET .*\/servers\/[^/]+\/databases$/), command).toBe(SERVERS * 2);
        expect(sum(/^GET .*\/databases\/[^/]+$/), command).toBe(0);
        const all = Object.entries(byRoute).filter(([route]) => !route.includes(" /metadata/"));
        const known =
          /encryptionProtector|KeyVault|transparentDataEncryption|serviceTierAdvisors|\/servers\/[^/]+$|\/servers\/[^/]+\/databases$|Microsoft\.Authorization/;
        expect(
          all.filter(([route]) => !known.test(route)),
          command,
        ).toEqual([]);
      }
    } finally {
      await kcEmu.close();
    }
  });
});

describe("ARM requests of check with protectors in Managed HSMs", () => {
  const HSM_SUB = "00000000-0000-0000-0000-0000000000d8";
  const SERVERS = 6;
  // Servers 0-2 share one key version of hsm-shared; 3 uses another key of it; 4 a key of hsm-other; 5 a vault's key.
  const keyOf = (i: number) =>
    i < 3
      ? "hsm-shared.managedhsm/tde-a"
      : i === 3
        ? "hsm-shared.managedhsm/tde-b"
        : i === 4
          ? "hsm-other.managedhsm/tde-c"
          : "kv-plain.vault/tde-v";
  const VERSION = "0123456789abcdef0123456789abcdef";
  // Each server's system-assigned identity; the vault-held key's server (5) reaches it by kv-plain's access policy.
  const principal = (i: number) => `22222222-0000-4000-8000-0000000000${String(i).padStart(2, "0")}`;
  const HSM_SEED = `
emulator:
  pageSize: 2
sql:
  subscriptionId: ${HSM_SUB}
  servers:
${Array.from({ length: SERVERS }, (_, i) => {
  const [host, key] = keyOf(i).split("/");
  return `    - name: sql-hsm-${i}
      resourceGroup: rg-hsm
      identity: { type: SystemAssigned, principalId: ${principal(i)} }
      encryptionProtector: { keyUri: https://${host}.azure.net/keys/${key}/${VERSION} }
      databases: [{ name: db-a, transparentDataEncryption: Enabled }]`;
}).join("\n")}
keyvault:
  subscriptionId: ${HSM_SUB}
  vaults:
    - name: kv-plain
      resourceGroup: rg-keys
      enablePurgeProtection: true
      accessPolicies: [{ objectId: ${principal(5)}, permissions: { keys: [get, wrapKey, unwrapKey] } }]
      keys: [{ name: tde-v, version: "${VERSION}", expirationDate: now+400d }]
  managedHsms:
    - { name: hsm-decoy, resourceGroup: rg-decoys }
    - name: hsm-shared
      resourceGroup: rg-keys
      keys:
        - { name: tde-a, kty: RSA-HSM, version: "${VERSION}", expirationDate: now+400d }
        - { name: tde-b, kty: RSA-HSM, version: "${VERSION}", expirationDate: now+400d }
    - name: hsm-other
      resourceGroup: rg-keys-2
      keys: [{ name: tde-c, kty: RSA-HSM, version: "${VERSION}", expirationDate: now+400d }]
`;
  const HSM_STACK = [
    "config:",
    `  stackwarden:subscriptionId: ${HSM_SUB}`,
    "  stackwarden:databases:",
    ...Array.from(
      { length: SERVERS },
      (_, i) => `    - { resourceGroup: rg-hsm, server: sql-hsm-${i}, database: db-a, transparentDataEncryption: Enabled }`,
    ),
    ...onlyBudgetedRules(),
    "",
  ].join("\n");

  it("one HSM listing per run, one GET per distinct HSM and per distinct HSM key version, beside the vault's own reads", async () => {
    const hsmEmu = await startTestEmulator({ seed: seedFromYaml(HSM_SEED) });
    try {
      const hsmDir = stackDir({ "Pulumi.hsm.yaml": HSM_STACK });
      const r = await runCli(["check", "--config", "Pulumi.hsm.yaml"], hsmEmu.url, hsmDir);
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      const { byRoute } = (await (await fetch(`${hsmEmu.url}/_emulator/stats`)).json()) as { byRoute: Record<string, number> };
      const sum = (re: RegExp) => Object.entries(byRoute).reduce((n, [route, c]) => (re.test(route) ? n + c : n), 0);
      expect(sum(/^GET .*\/encryptionProtector\//)).toBe(SERVERS);
      // The HSM listing pages (page size 2, three HSMs): two requests, once for the whole run.
      expect(sum(/^GET \/subscriptions\/[^/]+\/providers\/Microsoft\.KeyVault\/managedHSMs$/)).toBe(2);
      expect(sum(/^GET .*\/managedHSMs\/[^/]+$/)).toBe(2);
      expect(sum(/^GET .*\/managedHSMs\/[^/]+\/keys\/[^/]+\/versions\/[^/]+$/)).toBe(3);
      // The one vault-held key costs what it did: a listing, the vault, the key version.
      expect(sum(/^GET \/subscriptions\/[^/]+\/providers\/Microsoft\.KeyVault\/vaults$/)).toBe(1);
      expect(sum(/^GET .*\/vaults\/[^/]+$/)).toBe(1);
      expect(sum(/^GET .*\/vaults\/[^/]+\/keys\/[^/]+\/versions\/[^/]+$/)).toBe(1);
      // tde-key-access reads each customer-managed server's identity (it judges an HSM key not applicable).
      expect(sum(/^GET .*\/servers\/[^/]+$/)).toBe(SERVERS);
      const all = Object.entries(byRoute).filter(([route]) => !route.includes(" /metadata/"));
      // Each server's databases are listed (whether any has its own protector): the list, never a GET per database.
      const known =
        /encryptionProtector|KeyVault|transparentDataEncryption|serviceTierAdvisors|\/servers\/[^/]+$|\/servers\/[^/]+\/databases$/;
      expect(all.filter(([route]) => !known.test(route))).toEqual([]);
    } finally {
      await hsmEmu.close();
    }
  });
});
