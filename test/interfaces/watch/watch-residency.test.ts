import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCli, type CliProcess } from "../../helpers/cli-process";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { eventually, metricValue } from "./watch-metrics";
import { RESIDENCY_ESTATE, RESIDENCY_GEOCODING_KEY as KEY, RESIDENCY_SUBSCRIPTION as SUB } from "../../fixtures/estates/residency";

// A watch tick checks what `check` checks of live state, data residency included: a stack with
// stackwarden:residency has its resources placed each tick, through the geocoding service.

// The estate's database in West Europe (NL), and no Batch AI discovery (no resource group): the
// database is all a tick places.
const STACK = (allowed: string) => `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg-data, server: sql-eu, database: orders, transparentDataEncryption: Enabled }
  stackwarden:batch:
    resourceGroups: []
  stackwarden:residency:
    allowedCountries: [${allowed}]
`;

let t: TestEmulator;
let dir: string;
const running: CliProcess[] = [];
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(RESIDENCY_ESTATE) });
  dir = mkdtempSync(join(tmpdir(), "stackwarden-watch-residency-"));
  writeFileSync(join(dir, "Pulumi.us.yaml"), STACK("US"));
  writeFileSync(join(dir, "Pulumi.nl.yaml"), STACK("NL"));
});
afterAll(async () => {
  for (const p of running) p.child.kill("SIGKILL");
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function watch(file: string, extraEnv: NodeJS.ProcessEnv): CliProcess {
  const p = startCli(["watch", "--config", file, "--interval", "100ms", "--listen", "127.0.0.1:0"], {
    cwd: dir,
    env: { PATH: process.env.PATH, STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata`, ...extraEnv },
  });
  running.push(p);
  return p;
}

const geocodingEnv = () => ({ STACKWARDEN_GEOCODING_ENDPOINT: `${t.url}/geocoding`, STACKWARDEN_GEOCODING_API_KEY: KEY });
const metricsOf = async (p: CliProcess) => {
  const url = /listening on (http:\/\/\S+)/.exec(await p.line(/listening on http/))![1];
  return async () => (await fetch(`${url}/metrics`)).text();
};

describe("watch with stackwarden:residency", () => {
  it("places the stack's database each tick: a country outside allowedCountries is a mandatory finding, an allowed one none", async () => {
    const us = watch("Pulumi.us.yaml", geocodingEnv());
    const usMetrics = await metricsOf(us);
    await eventually("a tick with the residency finding", async () =>
      metricValue(await usMetrics(), "stackwarden_findings", { stack: "us", rule: "data-residency", level: "mandatory" }) === 1
        ? true
        : undefined,
    );
    expect(us.out()).not.toMatch(/FAILED/);

    const nl = watch("Pulumi.nl.yaml", geocodingEnv());
    const nlMetrics = await metricsOf(nl);
    await eventually(
      "a clean tick",
      async () => (metricValue(await nlMetrics(), "stackwarden_watch_ticks_total", { stack: "nl", result: "ok" }) ?? 0) >= 1 || undefined,
    );
    expect(metricValue(await nlMetrics(), "stackwarden_findings", { stack: "nl", rule: "data-residency", level: "mandatory" }) ?? 0).toBe(
      0,
    );

    for (const p of [us, nl]) p.child.kill("SIGTERM");
    expect(await us.exited, us.err()).toBe(0);
    expect(await nl.exited, nl.err()).toBe(0);
  });

  it("a refused geocoding key fails the tick, says why in one line and never prints the key", async () => {
    const w = watch("Pulumi.us.yaml", { ...geocodingEnv(), STACKWARDEN_GEOCODING_API_KEY: "gk-wrong-key-0000" });
    const line = await w.line(/FAILED/);
    expect(line).toMatch(/tick 1: FAILED: .*(key|401)/i);
    const m = await metricsOf(w);
    expect(metricValue(await m(), "stackwarden_watch_ticks_total", { stack: "us", result: "error" })).toBeGreaterThanOrEqual(1);
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
    expect(w.out() + w.err()).not.toContain("gk-wrong-key-0000");
  });
});
