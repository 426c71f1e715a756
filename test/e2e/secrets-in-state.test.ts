import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { PulumiProject, e2eCli, e2eRequired, explain } from "../helpers/pulumi-cli";
import type { CommandResult } from "../helpers/cli-process";
import { filesUnder } from "../helpers/files-under";

// The real Pulumi CLI runs the stack with every credential input planted (a valid AZURE_ACCESS_TOKEN
// whose value is known, the geocoding and API Setu keys) and debug logging on; neither the token nor
// the keys, nor any JWT, may appear in its output, in `pulumi stack export`, or in any file of the
// file:// backend (the checkpoints and their history).

const cli = e2eCli();
const SUB = "00000000-0000-0000-0000-000000000000";
const STACK = "secrets";
const GEO_KEY = "geo-planted-e2e-key-51f0";
const SETU_KEY = "setu-planted-e2e-key-a9c3";
const SETU_CLIENT = "setu-planted-e2e-client-77d2";
const JWT_SHAPE = /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/;

if (!cli && e2eRequired()) {
  it("has a Pulumi CLI (STACKWARDEN_E2E=required)", () => {
    expect.fail("STACKWARDEN_E2E=required but no Pulumi CLI was found: run `npm run pulumi:install`");
  });
}

describe.skipIf(!cli)("Pulumi CLI end to end: planted credentials stay out of the output and the state", () => {
  let t: TestEmulator;
  let project: PulumiProject;
  let token = "";
  const outputs: CommandResult[] = [];
  const run = async (args: string[]) => {
    const r = await project.pulumi(args);
    outputs.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await startTestEmulator({
      seed: seedFromYaml(`
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 100
  servers:
    - name: sql-sec
      resourceGroup: rg-sec
      databases:
        - { name: alpha, transparentDataEncryption: Disabled }
        - { name: beta, transparentDataEncryption: Enabled }
`),
    });
    token = (await t.credential.getToken("https://management.azure.com/.default")).token;
    project = new PulumiProject({ cli: cli!, emulatorUrl: t.url });
    Object.assign(project.env, {
      AZURE_ACCESS_TOKEN: token,
      STACKWARDEN_GEOCODING_API_KEY: GEO_KEY,
      STACKWARDEN_APISETU_API_KEY: SETU_KEY,
      STACKWARDEN_APISETU_CLIENT_ID: SETU_CLIENT,
      STACKWARDEN_LOG: "debug",
    });
    project.writeStackConfig(STACK, {
      "stackwarden:subscriptionId": SUB,
      "stackwarden:databases": [
        { resourceGroup: "rg-sec", server: "sql-sec", database: "alpha", transparentDataEncryption: "Enabled" },
        { resourceGroup: "rg-sec", server: "sql-sec", database: "beta", transparentDataEncryption: "Enabled" },
      ],
    });
  });

  afterAll(async () => {
    project?.cleanup();
    await t?.close();
  });

  it("up, refresh, export and destroy with the credentials planted: none of them anywhere", async () => {
    for (const args of [
      ["login", project.backendUrl],
      ["stack", "init", STACK],
    ]) {
      const r = await run(args);
      expect(r.code, explain(r)).toBe(0);
    }
    const up = await run(["up", "--yes", "--policy-pack", "policies"]);
    expect(up.code, explain(up)).toBe(0);
    const refresh = await run(["preview", "--refresh", "--expect-no-changes"]);
    expect(refresh.code, explain(refresh)).toBe(0);
    const exported = await run(["stack", "export"]);
    expect(exported.code, explain(exported)).toBe(0);
    // The token did its work: the stack converged through it.
    expect(JSON.parse(exported.stdout).deployment.resources.length).toBeGreaterThan(2);
    const state = filesUnder(join(project.root, "backend"));
    expect(state.some((f) => f.path.endsWith(`${STACK}.json`))).toBe(true);
    const destroy = await run(["destroy", "--yes"]);
    expect(destroy.code, explain(destroy)).toBe(0);

    const haystack = [
      ...outputs.map((o) => o.output),
      ...state.map((f) => `${f.path}\n${f.text}`),
      ...filesUnder(project.dir).map((f) => f.text),
    ].join("\n");
    for (const secret of [token, GEO_KEY, SETU_KEY, SETU_CLIENT])
      expect(haystack.includes(secret), `leaked ${secret.slice(0, 12)}…`).toBe(false);
    expect(haystack).not.toMatch(JWT_SHAPE);
  });
});
