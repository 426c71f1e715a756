import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlClient } from "../../../src/services/sql/client";
import { azuriteEnv, startTestAzurite } from "../../helpers/azurite";
import { requireCompiledCli, runCliProcess, startCli, type CliProcess } from "../../helpers/cli-process";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { stackDir } from "../cli/cli-harness";
import { eventually } from "./watch-metrics";

/**
 * Watcher replicas in separate directories (no disk in common) sharing one state URL on Azurite,
 * with --auto-remediate: one leads and repairs an out-of-band change once; after kill -9 of the
 * leader another takes over and repairs the next; a leader stopped with SIGSTOP and resumed after
 * the takeover sends no PUT and steps down; every episode is repaired by exactly one PUT; the one
 * audit chain, written by all, verifies from yet another directory.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 100
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: orders, transparentDataEncryption: Enabled }
`;
const STACK = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n    - { resourceGroup: rg, server: s1, database: orders, transparentDataEncryption: Enabled }\n`;
const ORDERS = { subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: "orders" };

let emu: TestEmulator;
let azurite: Awaited<ReturnType<typeof startTestAzurite>>;
let sql: SqlClient;
let env: NodeJS.ProcessEnv;
const running: CliProcess[] = [];

beforeAll(async () => {
  requireCompiledCli();
  [emu, azurite] = await Promise.all([startTestEmulator({ seed: seedFromYaml(SEED) }), startTestAzurite()]);
  sql = new SqlClient({ endpoint: emu.url, credential: emu.credential, retry: FAST_RETRY });
  env = {
    PATH: process.env.PATH,
    STACKWARDEN_EMULATOR: emu.url,
    ...azuriteEnv(azurite.freshStateUrl("replicas")),
    STACKWARDEN_LEASE_SECONDS: "15",
    STACKWARDEN_CAMPAIGN_MS: "500",
  };
});
afterAll(async () => {
  for (const p of running) p.child.kill("SIGKILL");
  await azurite?.stop();
  await emu?.close();
});

const puts = () =>
  Object.entries(emu.emu.stats.byRoute)
    .filter(([k]) => k.startsWith("PUT "))
    .reduce((n, [, v]) => n + v, 0);

async function replica(): Promise<{ p: CliProcess; url: string }> {
  const dir = stackDir({ "Pulumi.rep.yaml": STACK });
  const p = startCli(
    ["watch", "--config", "Pulumi.rep.yaml", "--interval", "1s", "--auto-remediate", "--listen", "127.0.0.1:0", "--poll-interval", "50"],
    {
      cwd: dir,
      env,
    },
  );
  running.push(p);
  const url = /listening on (http:\/\/\S+)/.exec(await p.line(/listening on http/, 60_000))![1];
  return { p, url };
}

async function role(url: string): Promise<{ role: string; leader?: { pid: number } }> {
  return (await (await fetch(`${url}/api/v1/replica`)).json()) as { role: string; leader?: { pid: number } };
}

async function outOfBand(): Promise<void> {
  await sql.putTransparentDataEncryption(ORDERS, "Disabled");
}

const tde = async () => (await sql.getTransparentDataEncryption(ORDERS)).properties?.status;

describe("watcher replicas on one state URL", () => {
  it("one leads and repairs once; kill -9 hands over; a resumed SIGSTOPped leader sends nothing; one PUT per episode; one chain", async () => {
    const a = await replica();
    await eventually("a leads", async () => ((await role(a.url)).role === "leader" ? true : undefined), 30_000);
    const b = await replica();
    expect(await role(b.url)).toMatchObject({ role: "standby", leader: { pid: a.p.pid } });
    const metricsB = await (await fetch(`${b.url}/metrics`)).text();
    expect(metricsB).toMatch(/^stackwarden_watch_leader 0$/m);
    expect(await (await fetch(`${a.url}/metrics`)).text()).toMatch(/^stackwarden_watch_leader 1$/m);

    // Episode 1: the leader repairs it, once.
    let before = puts();
    await outOfBand();
    await eventually("episode 1 repaired", async () => ((await tde()) === "Enabled" ? true : undefined), 30_000);
    await new Promise((r) => setTimeout(r, 3_000)); // a few more ticks of both: nothing more is sent
    expect(puts() - before).toBe(2); // the out-of-band change and one repair

    // kill -9 of the leader: its lease lapses, and the standby takes over.
    a.p.child.kill("SIGKILL");
    await a.p.exited;
    await eventually("b leads", async () => ((await role(b.url)).role === "leader" ? true : undefined), 40_000);
    before = puts();
    await outOfBand();
    await eventually("episode 2 repaired", async () => ((await tde()) === "Enabled" ? true : undefined), 30_000);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(puts() - before).toBe(2);

    // A third replica stands by; the leader is paused past its lease and the third takes over.
    const c = await replica();
    expect(await role(c.url)).toMatchObject({ role: "standby", leader: { pid: b.p.pid } });
    b.p.child.kill("SIGSTOP");
    await eventually("c leads", async () => ((await role(c.url)).role === "leader" ? true : undefined), 40_000);
    before = puts();
    await outOfBand();
    await eventually("episode 3 repaired", async () => ((await tde()) === "Enabled" ? true : undefined), 30_000);
    // The paused leader wakes up: it finds its lease gone, says so, and sends nothing.
    b.p.child.kill("SIGCONT");
    await b.p.line(/no longer leading watch-rep: .*; standing by/, 30_000);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(puts() - before).toBe(2);
    expect(await role(b.url)).toMatchObject({ role: "standby", leader: { pid: c.p.pid } });

    // One chain, written by the three leaders, verifies from another directory.
    const verify = await runCliProcess(["audit", "verify", "--stack", "rep", "--output", "json"], { cwd: stackDir({}), env });
    expect(verify.code, verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ intact: true, entries: 3, problems: [] });
  }, 300_000);
});
