import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/platform/http";
import { scanPhase } from "../../../src/emulator/services/sql/tde-scan";
import { seedFromYaml } from "../../helpers/emulator";
import { db, dbPath, startSql, type SqlHarness } from "./sql-test-kit";

/** One server with a database per scan behaviour; scans take 10 s on the emulator clock unless said otherwise. */
const SEED = `
sql:
  scanDurationMs: 10000
  servers:
    - name: sql-scan
      resourceGroup: rg-scan
      location: North Europe
      databases:
        - { name: plain }
        - { name: encrypted, transparentDataEncryption: Enabled }
        - { name: failing, scan: { outcome: fail, failAtPercent: 40 } }
        - { name: stuck, scan: { outcome: stall, failAtPercent: 70, durationMs: 1000 } }
        - { name: instant, scan: { durationMs: 0 } }
`;

const ref = (name: string) => db("sql-scan", name, "rg-scan");
const isApiError = (status: number, code: string) => (e: unknown) => e instanceof ApiError && e.status === status && e.code === code;

describe("TDE scans on the emulator clock", () => {
  let h: SqlHarness;
  afterEach(async () => {
    await h?.close();
  });

  async function status(name: string): Promise<string | undefined> {
    return (await h.client.getTransparentDataEncryption(ref(name))).properties?.status;
  }
  async function activities(name: string) {
    return h.client.listTransparentDataEncryptionActivities(ref(name));
  }

  it("PUT Enabled: reported at once, Encrypting with rising percentComplete, then finished and Enabled; then Disabled decrypts", async () => {
    h = await startSql(seedFromYaml(SEED));
    expect(await status("plain")).toBe("Disabled");
    expect(await activities("plain")).toEqual([]);

    const put = await h.client.putTransparentDataEncryption(ref("plain"), "Enabled");
    expect(put.properties?.status).toBe("Enabled");
    expect(put.name).toBe("current");
    expect(put.location).toBe("North Europe");
    expect(put.id).toBe(
      "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-scan/providers/Microsoft.Sql/servers/sql-scan/databases/plain/transparentDataEncryption/current",
    );

    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [a] = await activities("plain");
      expect(a.properties?.status).toBe("Encrypting");
      expect(a.id).toBe(`${put.id}/operationResults/current`);
      seen.push(a.properties!.percentComplete!);
      h.emu.advanceClock(2000);
    }
    expect(seen[0]).toBeLessThan(5);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]);
    expect(seen[3]).toBeGreaterThanOrEqual(60);
    expect(seen[3]).toBeLessThan(100);
    expect(await status("plain")).toBe("Enabled");

    h.emu.advanceClock(2500);
    expect(await activities("plain")).toEqual([]);
    expect(await status("plain")).toBe("Enabled");

    await h.client.putTransparentDataEncryption(ref("plain"), "Disabled");
    const [d] = await activities("plain");
    expect(d.properties?.status).toBe("Decrypting");
    expect(await status("plain")).toBe("Disabled");
    h.emu.advanceClock(10_001);
    expect(await activities("plain")).toEqual([]);
    expect(await status("plain")).toBe("Disabled");
  });

  it("outcome fail: the scan ends at failAtPercent, the activity disappears and the status reverts", async () => {
    h = await startSql(seedFromYaml(SEED));
    await h.client.putTransparentDataEncryption(ref("failing"), "Enabled");
    h.emu.advanceClock(3000);
    const [a] = await activities("failing");
    expect(a.properties?.percentComplete).toBeGreaterThanOrEqual(30);
    expect(a.properties?.percentComplete).toBeLessThan(40);
    expect(await status("failing")).toBe("Enabled");
    h.emu.advanceClock(1100);
    expect(await activities("failing")).toEqual([]);
    expect(await status("failing")).toBe("Disabled");
  });

  it("outcome stall: percentComplete stops at failAtPercent and the scan never finishes", async () => {
    h = await startSql(seedFromYaml(SEED));
    await h.client.putTransparentDataEncryption(ref("stuck"), "Enabled");
    h.emu.advanceClock(500);
    expect((await activities("stuck"))[0].properties?.percentComplete).toBeLessThan(70);
    h.emu.advanceClock(3_000_000);
    const [a] = await activities("stuck");
    expect(a.properties).toEqual({ status: "Encrypting", percentComplete: 70 });
    expect(await status("stuck")).toBe("Enabled");
    // Still running, so reversing it is refused.
    await expect(h.client.putTransparentDataEncryption(ref("stuck"), "Disabled")).rejects.toSatisfy(
      isApiError(409, "ConflictingDatabaseOperation"),
    );
  });

  it("a PUT with the current status starts no scan, also while a scan to that status runs", async () => {
    h = await startSql(seedFromYaml(SEED));
    const same = await h.client.putTransparentDataEncryption(ref("encrypted"), "Enabled");
    expect(same.properties?.status).toBe("Enabled");
    expect(await activities("encrypted")).toEqual([]);

    await h.client.putTransparentDataEncryption(ref("plain"), "Enabled");
    h.emu.advanceClock(5000);
    const before = (await activities("plain"))[0].properties!.percentComplete!;
    await h.client.putTransparentDataEncryption(ref("plain"), "Enabled");
    const after = (await activities("plain"))[0].properties!.percentComplete!;
    expect(after).toBeGreaterThanOrEqual(before); // the same scan, not a new one from 0
  });

  it("a PUT that would reverse a running scan is a 409 ConflictingDatabaseOperation naming the database; after the scan it is accepted", async () => {
    h = await startSql(seedFromYaml(SEED));
    await h.client.putTransparentDataEncryption(ref("plain"), "Enabled");
    const err = await h.client.putTransparentDataEncryption(ref("plain"), "Disabled").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 409,
      code: "ConflictingDatabaseOperation",
      operation: "TransparentDataEncryptions_CreateOrUpdate",
    });
    expect((err as ApiError).detail).toContain("'plain'");
    expect(await status("plain")).toBe("Enabled");
    h.emu.advanceClock(10_000);
    await h.client.putTransparentDataEncryption(ref("plain"), "Disabled");
    expect((await activities("plain"))[0].properties?.status).toBe("Decrypting");
    // The stats tell the refused write from the two accepted ones.
    const key = Object.keys(h.emu.stats.byRoute).find((k) => k.startsWith("PUT ") && /transparentDataEncryption/i.test(k))!;
    expect(h.emu.stats.byRoute[key]).toBe(3);
    expect(h.emu.stats.refusedByRoute).toEqual({ [key]: 1 });
  });

  it("master refuses TDE changes with a 400 and stays Disabled", async () => {
    h = await startSql(seedFromYaml(SEED));
    expect(await status("master")).toBe("Disabled");
    for (const s of ["Enabled", "Disabled"] as const) {
      await expect(h.client.putTransparentDataEncryption(ref("master"), s)).rejects.toSatisfy(
        isApiError(400, "OperationNotSupportedOnMasterDatabase"),
      );
    }
    expect(await status("MASTER")).toBe("Disabled");
    expect(await activities("master")).toEqual([]);
    expect(await h.client.listServiceTierAdvisors(ref("master"))).toEqual([]);
  });

  it("a zero-length scan is over at once", async () => {
    h = await startSql(seedFromYaml(SEED));
    await h.client.putTransparentDataEncryption(ref("instant"), "Enabled");
    expect(await activities("instant")).toEqual([]);
    expect(await status("instant")).toBe("Enabled");
  });

  it("refuses bodies without a valid status with an ARM code, and unknown TDE names with a 404", async () => {
    h = await startSql(seedFromYaml(SEED));
    const tde = `${dbPath(ref("plain"))}/transparentDataEncryption/current`;
    const cases: [unknown, number, string][] = [
      [{ properties: {} }, 400, "MissingRequiredParameter"],
      [{ properties: { status: "Paused" } }, 400, "InvalidParameterValue"],
      [{ properties: { status: 1 } }, 400, "InvalidParameterValue"],
      [{ status: "Enabled" }, 400, "InvalidRequestContent"],
      [[], 400, "InvalidRequestContent"],
      ["{not json", 400, "InvalidRequestContent"],
    ];
    for (const [body, code, name] of cases) {
      const res = await h.raw("PUT", tde, body);
      expect([res.status, (res.body as { error: { code: string } }).error.code], JSON.stringify(body)).toEqual([code, name]);
    }
    expect(await activities("plain")).toEqual([]);
    // ARM enums match case-insensitively.
    expect((await h.raw("PUT", tde, { properties: { status: "enabled" } })).body).toMatchObject({ properties: { status: "Enabled" } });
    const other = await h.raw("GET", `${dbPath(ref("plain"))}/transparentDataEncryption/previous`);
    expect(other.status).toBe(404);
    expect((other.body as { error: { message: string } }).error.message).toContain(
      "sql-scan/databases/plain/transparentDataEncryption/previous",
    );
  });

  it("a running scan survives an emulator restart with --state", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sw-sql-"));
    try {
      h = await startSql(seedFromYaml(SEED), { stateDir: dir });
      await h.client.putTransparentDataEncryption(ref("plain"), "Enabled");
      h.emu.advanceClock(4000);
      await h.close();
      h = await startSql(seedFromYaml(SEED), { stateDir: dir });
      const [a] = await activities("plain");
      expect(a.properties?.status).toBe("Encrypting");
      expect(a.properties?.percentComplete).toBeGreaterThanOrEqual(40);
      h.emu.advanceClock(6000);
      expect(await activities("plain")).toEqual([]);
      expect(await status("plain")).toBe("Enabled");
      await h.close();
      h = await startSql(seedFromYaml(SEED), { stateDir: dir });
      expect(await status("plain")).toBe("Enabled");
    } finally {
      await h.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
    h = undefined as unknown as SqlHarness;
  });
});

describe("scanPhase", () => {
  const scan = { from: "Disabled", to: "Enabled", startedAt: 1000, durationMs: 1000, outcome: "succeed", failAtPercent: 50 } as const;
  it("computes progress from timestamps alone", () => {
    expect(scanPhase(scan, 1000)).toEqual({ running: true, activity: "Encrypting", percentComplete: 0 });
    expect(scanPhase(scan, 1500)).toEqual({ running: true, activity: "Encrypting", percentComplete: 50 });
    expect(scanPhase(scan, 1999.99)).toMatchObject({ running: true, percentComplete: 99.99 });
    expect(scanPhase(scan, 2000)).toEqual({ running: false, status: "Enabled" });
    expect(scanPhase({ ...scan, outcome: "fail" }, 1500)).toEqual({ running: false, status: "Disabled" });
    expect(scanPhase({ ...scan, outcome: "stall" }, 99_000)).toEqual({ running: true, activity: "Encrypting", percentComplete: 50 });
    expect(scanPhase({ ...scan, from: "Enabled", to: "Disabled" }, 1250)).toMatchObject({ activity: "Decrypting", percentComplete: 25 });
    expect(scanPhase(scan, 0)).toMatchObject({ running: true, percentComplete: 0 }); // a clock behind the start
  });
});
