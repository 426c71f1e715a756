import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { cleanShellEnv, requireCompiledCli, runCliProcess, type CommandResult } from "../../helpers/cli-process";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { WebhookReceiver } from "../../emulator/changes/webhook-receiver";
import { runCliWith, stackDir } from "./cli-harness";

// Issue 34, item 6: a newcomer sees drift without reading the source. `emulator change` changes a
// database's TDE as a person in the portal would, through the running emulator's Resource Manager
// (a real PUT with a token from its IMDS, counted as any write), and `plan` then shows the drift.

const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `sql:
  subscriptionId: ${SUB}
  scanDurationMs: 200
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: a, transparentDataEncryption: Enabled }
        - { name: b, transparentDataEncryption: Enabled }
        - { name: c, transparentDataEncryption: Enabled }
`;
const STACK = `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg, server: s1, database: a, transparentDataEncryption: Enabled }
    - { resourceGroup: rg, server: s1, database: b, transparentDataEncryption: Enabled }
`;

let t: TestEmulator;
let dir: string;
beforeAll(async () => {
  requireCompiledCli();
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  dir = stackDir({ "Pulumi.s.yaml": STACK });
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `stackwarden emulator change …` as a user runs it, in a clean shell with `env` (no STACKWARDEN_ or AZURE_ variable unless given). */
function change(args: string[], env: NodeJS.ProcessEnv = { STACKWARDEN_EMULATOR: t.url }): Promise<CommandResult> {
  return runCliProcess(["emulator", "change", ...args], { cwd: PROJECT_ROOT, env: cleanShellEnv(env), timeoutMs: 60_000 });
}

/** `plan` of the test's stack against the emulator, in-process. */
const plan = () =>
  runCliWith(["plan", "--config", "Pulumi.s.yaml"], { cwd: dir, env: { PATH: process.env.PATH, STACKWARDEN_EMULATOR: t.url } });

/** How many requests the emulator counted for a method and route (its `/_emulator/stats` figures). */
function served(method: string, routeIncludes: string): number {
  return Object.entries(t.emu.stats.byRoute)
    .filter(([k]) => k.startsWith(`${method} `) && k.includes(routeIncludes))
    .reduce((n, [, v]) => n + v, 0);
}

describe("emulator change: drift made out of band, as the portal makes it", () => {
  it("turns a database's TDE off through the emulator's Resource Manager in one line; plan then shows the drift (exit 2)", async () => {
    const before = await plan();
    expect(before.code, before.err).toBe(0);
    const puts = served("PUT", "transparentDataEncryption");
    const tokens = served("GET", "/metadata/identity/oauth2/token");

    const r = await change(["--database", "rg/s1/a", "--tde", "Disabled"]);
    expect(r.code, r.output).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.trimEnd()).toBe(
      `changed rg/s1/a: TDE Enabled -> Disabled, by a PUT of transparentDataEncryption/current through the Resource Manager of the emulator at ${t.url}; a decryption scan runs`,
    );
    // A real write, counted as any: one PUT, with a token the emulator's IMDS issued; no token printed.
    expect(served("PUT", "transparentDataEncryption")).toBe(puts + 1);
    expect(served("GET", "/metadata/identity/oauth2/token")).toBeGreaterThan(tokens);
    expect(r.output).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
    // Recorded as Azure records a portal change: Started then Succeeded in the emulator's Activity Log (issue 32).
    const recorded = t.emu.changes.activityLog
      .all()
      .map((e) => e.entry)
      .filter((e) => e.resourceId.endsWith("/databases/a/transparentDataEncryption/current"));
    expect(recorded.map((e) => e.status.value)).toEqual(["Succeeded", "Started"]);
    expect(recorded[0]).toMatchObject({
      operationName: { value: "Microsoft.Sql/servers/databases/transparentDataEncryption/write" },
      caller: expect.stringMatching(/\S/),
    });

    const after = await plan();
    expect(after.code, after.err).toBe(2);
    expect(after.out).toMatch(/~ rg\/s1\/a\s+TDE Disabled -> Enabled/);
    expect(after.out).not.toContain("rg/s1/b");
  });

  it("the status it already has: says so and writes nothing", async () => {
    const puts = served("PUT", "transparentDataEncryption");
    const r = await change(["--database", "rg/s1/b", "--tde", "Enabled"]);
    expect(r.code, r.output).toBe(0);
    expect(r.stdout.trimEnd()).toBe(`unchanged rg/s1/b: its TDE is already Enabled (nothing written to the emulator at ${t.url})`);
    expect(served("PUT", "transparentDataEncryption")).toBe(puts);
  });

  it("goes to the emulator alone: --emulator instead of the variable, a static token and another ARM endpoint ignored", async () => {
    const r = await change(
      [
        "--database",
        `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/b`,
        "--tde",
        "Disabled",
        "--emulator",
        t.url,
      ],
      {
        AZURE_ACCESS_TOKEN: "not-the-emulators",
        STACKWARDEN_ARM_ENDPOINT: "https://management.azure.com",
      },
    );
    expect(r.code, r.output).toBe(0);
    expect(r.stdout).toMatch(/^changed rg\/s1\/b: TDE Enabled -> Disabled/);
  });
});

describe("emulator change --as: a person's change, named in the change records (issue 40, item 13)", () => {
  it("writes with a user token from the emulator's user-token facility: the Activity Log's caller and Event Grid's claims are the UPN", async () => {
    const rx = await new WebhookReceiver().start();
    try {
      const sub = await fetch(`${t.url}/_emulator/event-subscriptions/as-alice`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ endpointUrl: rx.url }),
      });
      expect(sub.status).toBe(200);
      const tokens = served("GET", "/metadata/identity/oauth2/token");

      const r = await change(["--database", "rg/s1/c", "--tde", "Disabled", "--as", "alice@contoso.com"]);
      expect(r.code, r.output).toBe(0);
      expect(r.stderr).toBe("");
      expect(r.stdout.trimEnd()).toBe(
        `changed rg/s1/c: TDE Enabled -> Disabled, by a PUT of transparentDataEncryption/current through the Resource Manager of the emulator at ${t.url} as alice@contoso.com; a decryption scan runs`,
      );
      expect(r.output).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
      // Alice's token, not the machine's: IMDS was not asked for one.
      expect(served("GET", "/metadata/identity/oauth2/token")).toBe(tokens);
      const recorded = t.emu.changes.activityLog
        .all()
        .map((e) => e.entry)
        .filter((e) => e.resourceId.endsWith("/databases/c/transparentDataEncryption/current"));
      expect(recorded.map((e) => e.status.value)).toEqual(["Succeeded", "Started"]);
      for (const e of recorded) {
        expect(e.caller).toBe("alice@contoso.com");
        expect(e.claims).toMatchObject({ "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn": "alice@contoso.com" });
      }
      const [delivery] = await rx.waitForNotifications(1);
      const [event] = JSON.parse(delivery.body) as { subject: string; data: { claims: Record<string, string> } }[];
      expect(event.subject).toMatch(/\/databases\/c\/transparentDataEncryption\/current$/);
      expect(event.data.claims).toMatchObject({ "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn": "alice@contoso.com" });
    } finally {
      await fetch(`${t.url}/_emulator/event-subscriptions/as-alice`, { method: "DELETE" });
      await rx.close();
    }
  });

  it("a value that is not a user principal name is one SW_USAGE line, and nothing is written", async () => {
    const puts = served("PUT", "transparentDataEncryption");
    for (const bad of ["alice", "alice@contoso", "al ice@contoso.com"]) {
      const r = await change(["--database", "rg/s1/a", "--tde", "Enabled", "--as", bad]);
      expect(r.code, r.output).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(/^stackwarden emulator change: SW_USAGE: /);
      expect(r.stderr).toContain(`expected a user principal name such as alice@contoso.com, got "${bad}"`);
    }
    expect(served("PUT", "transparentDataEncryption")).toBe(puts);
  });
});

describe("emulator change: one line for bad input, exit 1, nothing written", () => {
  it("an unknown database is named", async () => {
    const puts = served("PUT", "transparentDataEncryption");
    const r = await change(["--database", "rg/s1/ghost", "--tde", "Disabled"]);
    expect(r.code, r.output).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd()).toMatch(
      new RegExp(
        `^stackwarden: SW_RESOURCE_NOT_FOUND: database rg/s1/ghost \\(subscription ${SUB}\\): Resource Manager has no such database: `,
      ),
    );
    expect(served("PUT", "transparentDataEncryption")).toBe(puts);
  });

  it("a database not named as RESOURCE_GROUP/SERVER/DATABASE, a status that is not one, a missing --tde", async () => {
    const cases: [string[], RegExp][] = [
      [["--database", "rg/s1", "--tde", "Disabled"], /argument 'rg\/s1' is invalid\. expected RESOURCE_GROUP\/SERVER\/DATABASE/],
      [["--database", "rg/s1/a", "--tde", "Off"], /argument 'Off' is invalid\. expected one of Enabled, Disabled/],
      [["--database", "rg/s1/a"], /required option '--tde <status>' not specified/],
    ];
    for (const [args, said] of cases) {
      const r = await change(args);
      expect(r.code, r.output).toBe(1);
      expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(/^stackwarden emulator change: SW_USAGE: /);
      expect(r.stderr).toMatch(said);
    }
  });

  it("no emulator named: it says how to name one, and never reaches Azure", async () => {
    const r = await change(["--database", "rg/s1/a", "--tde", "Disabled"], {});
    expect(r.code, r.output).toBe(1);
    expect(r.stderr.trimEnd()).toBe(
      "stackwarden: SW_USAGE: emulator change writes to a running emulator only: give --emulator URL or set STACKWARDEN_EMULATOR to the URL `stackwarden emulator` printed",
    );
  });

  it("--help shows its options", async () => {
    const r = await change(["--help"]);
    expect(r.code).toBe(0);
    for (const option of ["--database <rg/server/database>", "--tde <status>", "--subscription <id>", "--as <upn>", "--emulator <url>"])
      expect(r.stdout).toContain(option);
  });
});
