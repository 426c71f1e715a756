import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator();
});
afterAll(() => t.close());

const put = (path: string, body: string) =>
  fetch(`${t.url}/_emulator/${path}`, { method: "PUT", body, headers: { "content-type": "application/json" } });

it("refuses a bad fault configuration with 400 and keeps the old one", async () => {
  for (const body of ['{"rules":[{"rate":2}]}', '{"latency":5}', '{"rules":"all"}', "not json"]) {
    const res = await put("faults", body);
    expect(res.status, body).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("InvalidFaults");
  }
  expect(t.emu.faults.settings.rules).toEqual([]);
});

it("accepts a good fault configuration", async () => {
  const res = await put("faults", '{"seed":7,"rules":[{"status":503,"rate":0.1}]}');
  expect(res.status).toBe(200);
  expect(t.emu.faults.settings.seed).toBe(7);
  await put("faults", "{}");
});

it("validates settings", async () => {
  expect((await put("settings", '{"pageSize":0}')).status).toBe(400);
  expect((await put("settings", '{"pageSize":7}')).status).toBe(200);
  expect(t.emu.settings.pageSize).toBe(7);
});
