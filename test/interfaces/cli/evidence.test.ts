import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { chainEntry } from "../../../src/domain/audit/audit-chain";
import type { AuditRecord } from "../../../src/domain/audit/audit-entry";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { DEV_ESTATE, estate } from "../../services/keyvault/key-custody-kit";
import { runCli } from "./cli-harness";

/**
 * Against the default estate (stacks/dev.estate.yaml) with the dev stack: `check --output sarif` files
 * the key rules under their controls; `evidence` writes a bundle from one check and anchors it in the
 * stack's audit trail; `evidence verify` finds it intact, and tampered (exit 5) after any byte of it
 * is edited, a file is added, or the trail's entry is removed.
 */
const ROOT = join(__dirname, "../../..");

let emu: TestEmulator;
let work: string;
let env: Record<string, string>;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: estate(DEV_ESTATE) });
  work = mkdtempSync(join(tmpdir(), "stackwarden-evidence-"));
  env = {
    STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${emu.url}/binary-analysis/v1`,
    STACKWARDEN_GEOCODING_ENDPOINT: `${emu.url}/geocoding`,
    STACKWARDEN_AUDIT_DIR: join(work, "audit"),
    STACKWARDEN_LOCK_DIR: join(work, "locks"),
    STACKWARDEN_PROBE_DIR: join(work, "probes"),
  };
});

afterAll(async () => {
  await emu?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCli(argv, emu.url, ROOT, env);

interface Sarif {
  runs: {
    tool: { driver: { rules: { id: string; relationships?: { target: { id: string; toolComponent: { name: string } } }[] }[] } };
    taxonomies: { name: string; version: string; taxa: { id: string }[] }[];
    results: {
      ruleId: string;
      kind?: string;
      level: string;
      message: { text: string };
      locations: { physicalLocation: { region: { startLine: number } }; logicalLocations?: { fullyQualifiedName: string }[] }[];
    }[];
  }[];
}

describe("check --stack dev --output sarif", () => {
  it("files the key rules under CIS Azure 2.0.0 and Azure Policy; sql-prod-2's service-managed protector is a warning at its first database", async () => {
    const r = await cli("check", "--stack", "dev", "--output", "sarif");
    expect(r.code, r.err).toBe(3); // orders is unencrypted until apply
    const run = (JSON.parse(r.out) as Sarif).runs[0];
    const rules = new Map(run.tool.driver.rules.map((x) => [x.id, x]));
    const targets = (id: string) => rules.get(id)!.relationships!.map((x) => `${x.target.toolComponent.name} ${x.target.id}`);
    expect(targets("sql-tde-customer-managed-key")).toEqual([
      "CIS Microsoft Azure Foundations Benchmark 4.1.3",
      "Azure Policy 0a370ff3-6cab-4e85-8995-295fd854c5b8",
    ]);
    // 4.1.3 is judged on the protector's key type alone: only sql-tde-customer-managed-key files under it.
    expect(targets("tde-key-vault-recoverable")).not.toContain("CIS Microsoft Azure Foundations Benchmark 4.1.3");
    expect(targets("tde-key-vault-recoverable")).toContain("CIS Microsoft Azure Foundations Benchmark 8.5");
    expect(targets("tde-key-validity")).not.toContain("CIS Microsoft Azure Foundations Benchmark 4.1.3");
    expect(targets("tde-key-validity")).toEqual(
      expect.arrayContaining([
        "CIS Microsoft Azure Foundations Benchmark 8.1",
        "CIS Microsoft Azure Foundations Benchmark 8.2",
        "Azure Policy 152b15f7-8e1f-4c1f-ab71-8c010ba5dbc0",
        "Azure Policy d8cf8476-a2ec-4916-896e-992351803c44",
        "Azure Policy 5ff38825-c5d8-47c5-b70e-069a21955146",
      ]),
    );
    expect(targets("sql-tde-enabled")).toEqual([
      "CIS Microsoft Azure Foundations Benchmark 4.1.5",
      "Azure Policy 17k78e20-9358-41c9-923c-fb736d382a12",
    ]);
    const cis = run.taxonomies.find((t) => t.name === "CIS Microsoft Azure Foundations Benchmark" && t.version === "2.0.0")!;
    expect(cis.taxa.map((t) => t.id)).toEqual(expect.arrayContaining(["4.1.3", "4.1.5", "8.1", "8.2", "8.5"]));
    expect(run.taxonomies.filter((t) => t.name === "CIS Microsoft Azure Foundations Benchmark").map((t) => t.version)).toEqual(["2.0.0"]);
    // sql-prod-2 (listed databases) and sql-shared-1 (discovered by the dev stack's scope) are service-managed.
    const cmk = run.results
      .filter((x) => x.ruleId === "sql-tde-customer-managed-key")
      .sort((a, b) => a.message.text.localeCompare(b.message.text));
    expect(cmk).toHaveLength(2);
    expect(cmk[1].message.text).toMatch(/^SQL server rg-shared\/sql-shared-1 must protect/);
    expect(cmk[0].level).toBe("warning");
    expect(cmk[0].message.text).toMatch(/^SQL server rg-data\/sql-prod-2 must protect transparent data encryption/);
    const stackLines = readFileSync(join(ROOT, "stacks/Pulumi.dev.yaml"), "utf8").split("\n");
    const inventory = stackLines.findIndex((l) => l.includes("database: inventory"));
    // The first database of sql-prod-2 (inventory) starts its entry two lines above its `database:` key.
    expect(stackLines[cmk[0].locations[0].physicalLocation.region.startLine - 1]).toMatch(/resourceGroup: rg-data/);
    expect(cmk[0].locations[0].physicalLocation.region.startLine).toBe(inventory - 1);
    // Code scanning shows every result as an alert: passes stay out of check's SARIF.
    expect(run.results.some((x) => x.kind === "pass")).toBe(false);
  });

  it("with --sarif-passes, the key rules all have results (the healthy sql-prod-1, the customers database's own protector, and the discovered sql-prod-3's HSM key as passes)", async () => {
    const r = await cli("check", "--stack", "dev", "--output", "sarif", "--sarif-passes");
    expect(r.code, r.err).toBe(3);
    const run = (JSON.parse(r.out) as Sarif).runs[0];
    const of = (id: string) => run.results.filter((x) => x.ruleId === id).map((x) => x.kind ?? "fail");
    expect(of("sql-tde-customer-managed-key").sort()).toEqual(["fail", "fail", "pass", "pass", "pass"]);
    expect(of("tde-key-vault-recoverable")).toEqual(["pass", "pass", "pass"]);
    expect(of("tde-key-validity")).toEqual(["pass", "pass", "pass"]);
    // sql-prod-3's key is in a Managed HSM, whose local RBAC is not read: not applicable, not a pass.
    expect(of("tde-key-access")).toEqual(["pass", "pass"]);
    // The customers database's own protector is judged on its own key, as the database.
    const own = run.results.find(
      (x) => x.ruleId === "tde-key-validity" && /\/databases\/customers$/.test(x.locations[0].logicalLocations![0].fullyQualifiedName),
    )!;
    expect(own.message.text).toMatch(/^the key kv-prod-tde\/customers-tde\/9d2b7c1e0a4f4e6b8c3d5a7f1e2b4c6d is RSA-HSM 3072 bits/);
  });
});

describe("evidence --stack dev --out DIR, then evidence verify DIR", () => {
  let bundle: string;
  let trail: string;

  beforeAll(async () => {
    bundle = join(work, "bundle");
    const r = await cli("evidence", "--stack", "dev", "--out", bundle);
    expect(r.err).toBe("");
    expect(r.code).toBe(3); // the bundle records a mandatory violation (orders, audit and the discovered billing are unencrypted)
    expect(r.out).toMatch(/^Evidence bundle of stack dev in .*: \d+ files; 3 mandatory violation\(s\)/);
    trail = join(work, "audit", "dev.jsonl");
  });

  it("writes the reports, the facts per kind, the exemptions and the manifest", () => {
    const files = readdirSync(bundle, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(bundle.length + 1))
      .sort();
    expect(files).toEqual(
      expect.arrayContaining([
        "exemptions.json",
        "facts/databases.json",
        "facts/keyVaults.json",
        "facts/protectorKeys.json",
        "facts/tdeProtectors.json",
        "facts/vaultRoleAssignments.json",
        "manifest.json",
        "report.json",
        "report.md",
        "report.sarif",
      ]),
    );
    const manifest = JSON.parse(readFileSync(join(bundle, "manifest.json"), "utf8")) as { stack: string; files: { path: string }[] };
    expect(manifest.stack).toBe("dev");
    expect(manifest.files.map((f) => f.path).sort()).toEqual(files.filter((f) => f !== "manifest.json"));
  });

  it("each live fact carries the time of its read and Resource Manager's request id", () => {
    const read = (kind: string) =>
      (
        JSON.parse(readFileSync(join(bundle, "facts", `${kind}.json`), "utf8")) as {
          facts: {
            level?: string;
            database?: string;
            databases?: string[];
            reads?: { operation: string; readAt: string; requestId?: string; path: string }[];
          }[];
        }
      ).facts;
    const protectors = read("tdeProtectors");
    // sql-prod-1's and sql-prod-2's, the customers database's own (taken out of its server's Databases_ListByServer),
    // and those of sql-prod-3 and sql-shared-1, servers of databases the dev stack's scope discovers.
    expect(protectors).toHaveLength(5);
    expect(protectors[1]).toMatchObject({ level: "database", database: "customers", databases: ["customers"] });
    expect(protectors[1].reads![0].operation).toBe("Databases_ListByServer");
    expect(protectors[0]).toMatchObject({ databases: ["orders", "analytics", "reporting"] });
    const expectations: [string, string][] = [
      ["databases", "TransparentDataEncryptions_Get"],
      ["keyVaults", "Vaults_Get"],
      ["protectorKeys", "Keys_GetVersion"],
    ];
    for (const [i, p] of protectors.entries())
      expect(p.reads![0].operation, `${i}`).toBe(i === 1 ? "Databases_ListByServer" : "EncryptionProtectors_Get");
    // sql-prod-3 (a server of a database the scope discovers) keeps its key in a Managed HSM: its own reads.
    const inHsm: Record<string, string> = { keyVaults: "ManagedHsms_Get", protectorKeys: "ManagedHsmKeys_GetVersion" };
    for (const [kind, operation] of expectations) {
      for (const f of read(kind)) {
        // A customer-managed server's identity (tde-key-access) is a second read: Servers_Get.
        const identity = kind === "tdeProtectors" && (f as { identity?: unknown }).identity !== undefined;
        const hsm = /managedhsm/i.test(f.reads?.[0]?.path ?? "") && inHsm[kind];
        expect(
          f.reads?.map((r) => r.operation),
          kind,
        ).toEqual(identity ? [operation, "Servers_Get"] : [hsm || operation]);
        expect(Date.parse(f.reads![0].readAt)).not.toBeNaN();
        expect(f.reads![0].requestId).toMatch(/\S{8,}/);
      }
    }
    expect(read("keyVaults")).toEqual([
      expect.objectContaining({ name: "kv-prod-tde", resourceGroup: "rg-security", enablePurgeProtection: true }),
      expect.objectContaining({ name: "hsm-prod-tde" }),
    ]);
    expect(read("protectorKeys")).toEqual([
      expect.objectContaining({
        keyName: "sql-prod-1-tde",
        kty: "RSA-HSM",
        keySize: 3072,
        enabled: true,
        // The version's creation (seconds since 1970, for its age) and the key's rotation policy, as the dev estate seeds them.
        created: expect.any(Number),
        rotationPolicy: {
          expiryTime: "P2Y",
          lifetimeActions: [
            { action: "rotate", timeBeforeExpiry: "P60D" },
            { action: "notify", timeBeforeExpiry: "P30D" },
          ],
        },
      }),
      expect.objectContaining({ keyName: "customers-tde", kty: "RSA-HSM", keySize: 3072, enabled: true }),
      expect.objectContaining({ keyName: "sql-prod-3-tde" }),
    ]);
    // The protector, read at 2021-11-01, says whether the server rotates its key: sql-prod-1 does not; sql-prod-2 is
    // service-managed; the customers database's own (encryptionProtectorAutoRotation) does not either, nor the discovered ones' servers.
    expect(protectors.map((p) => (p as { autoRotationEnabled?: boolean }).autoRotationEnabled)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    // tde-key-access's facts: the server's identity, the RBAC vault's grant.
    expect(protectors.find((p) => (p as { server?: string }).server === "sql-prod-1")).toMatchObject({
      identity: { type: "SystemAssigned", principalId: "5a1d0b7e-3c2f-4e8a-9b6d-1f0e2d3c4b5a" },
    });
    expect(read("keyVaults")[0]).toMatchObject({ enableRbacAuthorization: true });
    // The customers database reaches its own key with its user-assigned identity, which holds the same role.
    expect(protectors.find((p) => (p as { database?: string }).database === "customers")).toMatchObject({
      identity: { type: "UserAssigned", keyIdentityId: expect.stringMatching(/\/userAssignedIdentities\/id-customers-tde$/) },
    });
    expect(read("vaultRoleAssignments")).toEqual([
      expect.objectContaining({
        vaultName: "kv-prod-tde",
        listed: 2,
        assignments: [
          expect.objectContaining({
            principalId: "5a1d0b7e-3c2f-4e8a-9b6d-1f0e2d3c4b5a",
            roleName: "Key Vault Crypto Service Encryption User",
            grantsKeyUse: true,
          }),
          expect.objectContaining({
            principalId: "5b1f3c2a-7d4e-4f60-9a8b-2c3d4e5f6a7b",
            roleName: "Key Vault Crypto Service Encryption User",
            grantsKeyUse: true,
          }),
        ],
      }),
    ]);
  });

  it("its SARIF records the passes too (kind pass): the three key rules have results", () => {
    const run = (JSON.parse(readFileSync(join(bundle, "report.sarif"), "utf8")) as Sarif).runs[0];
    const of = (id: string) => run.results.filter((x) => x.ruleId === id).map((x) => x.kind ?? "fail");
    expect(of("sql-tde-customer-managed-key").sort()).toEqual(["fail", "fail", "pass", "pass", "pass"]);
    expect(of("tde-key-vault-recoverable")).toEqual(["pass", "pass", "pass"]);
    expect(of("tde-key-validity")).toEqual(["pass", "pass", "pass"]);
    // sql-prod-3's key is in a Managed HSM, whose local RBAC is not read: not applicable, not a pass.
    expect(of("tde-key-access")).toEqual(["pass", "pass"]);
    expect(run.results.filter((x) => x.kind === "pass").every((x) => x.level === "none")).toBe(true);
  });

  it("anchors the manifest's hash in the stack's audit trail", () => {
    const lines = readFileSync(trail, "utf8").trim().split("\n");
    const last = JSON.parse(lines[lines.length - 1]) as { command: string; evidence: { manifestSha256: string }; exitCode: number };
    expect(last.command).toBe("evidence");
    expect(last.exitCode).toBe(3);
    expect(last.evidence.manifestSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("verify: intact (exit 0)", async () => {
    const r = await cli("evidence", "verify", bundle);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/: intact; manifest sha256 [0-9a-f]{64} anchored in .*dev\.jsonl \(line \d+, seq \d+/);
  });

  it("verify: editing any byte of any file of the bundle exits 5", async () => {
    const files = readdirSync(bundle, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
    for (const file of files) {
      const original = readFileSync(file);
      for (const at of [0, Math.floor(original.length / 2), original.length - 1]) {
        const edited = Buffer.from(original);
        edited[at] = edited[at] ^ 0x01;
        writeFileSync(file, edited);
        try {
          const r = await cli("evidence", "verify", bundle);
          expect(r.code, `${file} byte ${at}: ${r.out}`).toBe(5);
          expect(r.out).toContain("TAMPERED");
        } finally {
          writeFileSync(file, original);
        }
      }
    }
    expect((await cli("evidence", "verify", bundle)).code).toBe(0);
  }, 120_000);

  it("verify: a file added to the bundle exits 5", async () => {
    const extra = join(bundle, "facts", "extra.json");
    writeFileSync(extra, "{}\n");
    try {
      const r = await cli("evidence", "verify", bundle);
      expect(r.code).toBe(5);
      expect(r.out).toMatch(/unlisted: facts\/extra\.json is in the bundle but not in its manifest/);
    } finally {
      rmSync(extra);
    }
  });

  it("verify: removing the trail's entry exits 5 (unanchored), and JSON says why", async () => {
    const original = readFileSync(trail, "utf8");
    const lines = original.trimEnd().split("\n");
    writeFileSync(
      trail,
      lines
        .slice(0, -1)
        .map((l) => `${l}\n`)
        .join(""),
    );
    try {
      const r = await cli("evidence", "verify", bundle, "--output", "json");
      expect(r.code).toBe(5);
      const v = JSON.parse(r.out) as { intact: boolean; anchor: { found?: unknown; problems: string[] } };
      expect(v.intact).toBe(false);
      expect(v.anchor.found).toBeUndefined();
      expect(v.anchor.problems.join(" ")).toMatch(/not anchored/);
    } finally {
      writeFileSync(trail, original);
    }
    expect((await cli("evidence", "verify", bundle)).code).toBe(0);
  });

  it("verify --expect-head: a forged anchor on a rewritten trail passes the chain alone, but not a head published elsewhere", async () => {
    const original = readFileSync(trail, "utf8");
    const lines = original.trimEnd().split("\n");
    const published = (JSON.parse(lines[lines.length - 1]) as { hash: string }).hash;
    expect((await cli("evidence", "verify", bundle, "--expect-head", published)).code).toBe(0);
    // Someone who can write both the bundle and the trail: the real anchor replaced by a forged one,
    // chained and hashed as stackwarden would (so the chain alone holds).
    const forged = JSON.parse(lines[lines.length - 1]) as Record<string, unknown>;
    const previous = lines.length > 1 ? { line: lines[lines.length - 2], seq: (forged.seq as number) - 1 } : undefined;
    const { seq: _s, prev: _p, hash: _h, ...record } = forged;
    const rewritten = chainEntry({ ...(record as unknown as AuditRecord), note: "forged" }, previous).line;
    writeFileSync(trail, [...lines.slice(0, -1), rewritten].map((l) => `${l}\n`).join(""));
    try {
      expect((await cli("evidence", "verify", bundle)).code, "the chain alone cannot tell").toBe(0);
      const r = await cli("evidence", "verify", bundle, "--expect-head", published);
      expect(r.code).toBe(5);
      expect(r.out).toContain(`the expected head ${published} is not in the audit trail`);
    } finally {
      writeFileSync(trail, original);
    }
  });

  it("refuses a bundle directory that is not empty, and a directory that is not a bundle, in one line (exit 1)", async () => {
    const again = await cli("evidence", "--stack", "dev", "--out", bundle);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/exists and is not an empty directory/);
    const none = await cli("evidence", "verify", join(work, "audit"));
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/has no manifest\.json/);
  });
});
