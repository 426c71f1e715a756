import { execFile } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";

const ROOT = join(__dirname, "..", "..");

it("npm start's job (stackwarden start) reconciles the dev stack on the embedded emulator and exits 0", async () => {
  const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [join(ROOT, "bin", "stackwarden.js"), "start"],
      { cwd: ROOT, env: { PATH: process.env.PATH }, encoding: "utf8" },
      (_e, out, err) => resolve({ code: child.exitCode, out, err }),
    );
  });
  expect(r.code, r.err).toBe(0);
  const [plan, apply, again, check] = ["== 1. plan ==", "== 2. apply ==", "== 3. plan again ==", "== 4. check =="].map((h) =>
    r.out.indexOf(h),
  );
  expect(plan).toBeGreaterThanOrEqual(0);
  expect(apply).toBeGreaterThan(plan);
  expect(again).toBeGreaterThan(apply);
  expect(check).toBeGreaterThan(again);
  expect(r.out.slice(plan, apply)).toMatch(/~ rg-data\/sql-prod-1\/orders\s+TDE Disabled -> Enabled/);
  expect(r.out.slice(apply, again)).toMatch(/rg-data\/sql-prod-1\/orders: done: TDE Enabled/);
  expect(r.out.slice(apply, again)).toMatch(/Apply: (\d+) of \1 change\(s\) converged\./);
  expect(r.out.slice(again, check)).toContain("no changes");
  expect(r.out.slice(check)).toContain("0 mandatory violation(s)");
  // The dev stack's job scripts (stackwarden:artifacts) were scanned by the embedded emulator, and are clean.
  expect(r.out.slice(check)).toMatch(/; 2 artifact\(s\) scanned\.$/m);
  expect(r.out.slice(check)).not.toMatch(/artifact-(signature-clean|packed)/);
  expect(r.out.slice(check)).toMatch(/ADVISORY\s+sql-tier-advisor-drift\s+rg-data\/sql-prod-1\/customers/);
}, 60_000);
