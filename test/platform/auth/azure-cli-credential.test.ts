import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_ESTATE } from "../../../src/emulator/default-estate";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import { ImdsClient } from "../../../src/services/imds/client";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { cleanShellEnv, requireCompiledCli, runCliProcess } from "../../helpers/cli-process";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";

// A developer who ran `az login`: no token variable, a stand-in `az` first on PATH that answers
// `az account get-access-token --output json` in the shape the Azure CLI documents, with a token the
// emulator's IMDS minted (the emulator accepts only its own tokens). stackwarden runs as users run
// it, as a process. IMDS is pointed at a loopback port nobody listens on: "no IMDS here", as on a
// laptop, without sending anything to the link-local 169.254.169.254 (tests reach loopback only).

const TOKEN_ROUTE = "GET /metadata/identity/oauth2/token";
const TDE_ROUTE =
  "GET /subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Sql/servers/{serverName}/databases/{databaseName}/transparentDataEncryption/{transparentDataEncryptionName}";

let t: TestEmulator;
let work: string;
let token: string;
let noImds: string;

/** Writes a stand-in `az` into `dir`: signed in (it prints `token`), or signed out (az's own error). */
function standInAz(dir: string, mode: "signed-in" | "signed-out", expiresOn: number): string {
  mkdirSync(dir, { recursive: true });
  const log = join(dir, "calls.log");
  const local = new Date(expiresOn * 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  // The CLI prints expiresOn in local time, without a zone: "2026-06-15 10:22:51.000000".
  const expiresOnText = `${local.getFullYear()}-${p(local.getMonth() + 1)}-${p(local.getDate())} ${p(local.getHours())}:${p(local.getMinutes())}:${p(local.getSeconds())}.000000`;
  writeFileSync(
    join(dir, "az"),
    [
      `#!${process.execPath}`,
      '"use strict";',
      "// Stand-in for the Azure CLI after az login: `account get-access-token --output json` only.",
      "const a = process.argv.slice(2);",
      `require("node:fs").appendFileSync(${JSON.stringify(log)}, JSON.stringify(a) + "\\n");`,
      "const opt = (n) => { const i = a.indexOf(n); return i < 0 ? undefined : a[i + 1]; };",
      'if (a[0] !== "account" || a[1] !== "get-access-token" || opt("--output") !== "json") {',
      '  console.error(`ERROR: the stand-in az answers only account get-access-token --output json, not: ${a.join(" ")}`);',
      "  process.exit(2);",
      "}",
      mode === "signed-out"
        ? "console.error(\"ERROR: Please run 'az login' to setup account.\"); process.exit(1);"
        : [
            'if (opt("--resource") !== "https://management.azure.com") { console.error(`ERROR: the stand-in az has a token for ARM only, not ${opt("--resource")}`); process.exit(1); }',
            `process.stdout.write(JSON.stringify(${JSON.stringify({
              accessToken: token,
              expiresOn: expiresOnText,
              expires_on: expiresOn,
              subscription: "00000000-0000-0000-0000-000000000000",
              tenant: "72f988bf-86f1-41af-91ab-2d7cd011db47",
              tokenType: "Bearer",
            })}, null, 2) + "\\n");`,
          ].join("\n"),
      "",
    ].join("\n"),
  );
  chmodSync(join(dir, "az"), 0o755);
  return log;
}

/** The arguments of each call the stand-in `az` got. */
function calls(log: string): string[][] {
  return existsSync(log)
    ? readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as string[])
    : [];
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** Runs `stackwarden …` as a process with the stand-in first on PATH and no STACKWARDEN_/AZURE_ variable but `extra`. */
async function stackwarden(args: string[], azDir: string, extra: Record<string, string> = {}) {
  const r = await runCliProcess(args, {
    cwd: PROJECT_ROOT,
    env: cleanShellEnv({
      PATH: [azDir, process.env.PATH].join(delimiter),
      STACKWARDEN_ARM_ENDPOINT: t.url,
      STACKWARDEN_IMDS_ENDPOINT: noImds,
      ...extra,
    }),
  });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

let signedIn: string;
let signedOut: string;
beforeAll(async () => {
  requireCompiledCli();
  t = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
  const minted = await new ImdsClient({ endpoint: t.imdsEndpoint }).token({ resource: "https://management.azure.com/" });
  token = minted.access_token!;
  noImds = `http://127.0.0.1:${await closedPort()}/metadata`;
  work = mkdtempSync(join(tmpdir(), "stackwarden-az-"));
  signedIn = join(work, "signed-in");
  signedOut = join(work, "signed-out");
  standInAz(signedIn, "signed-in", Number(minted.expires_on));
  standInAz(signedOut, "signed-out", Number(minted.expires_on));
});
afterAll(async () => {
  await t.close();
  rmSync(work, { recursive: true, force: true });
});
beforeEach(() => {
  for (const k of Object.keys(t.emu.stats.byRoute)) delete t.emu.stats.byRoute[k];
  for (const d of [signedIn, signedOut]) rmSync(join(d, "calls.log"), { force: true });
});

describe("signed in with az, no token variable", () => {
  it("plan --stack dev authenticates through the Azure CLI credential and exits 2 (changes pending)", async () => {
    const r = await stackwarden(["plan", "--stack", "dev"], signedIn);
    expect(r.err).toBe("");
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^Plan for stack dev \(stacks\/Pulumi\.dev\.yaml\): \d+ changes?, \d+ unchanged$/m);
    // The CLI was asked once for the whole run (the token is cached), as DefaultAzureCredential asks it.
    expect(calls(join(signedIn, "calls.log"))).toEqual([
      ["account", "get-access-token", "--output", "json", "--resource", "https://management.azure.com"],
    ]);
    // ARM was read with that token; the emulator's IMDS was never asked for another.
    expect(t.emu.stats.byRoute[TDE_ROUTE]).toBeGreaterThan(0);
    expect(t.emu.stats.byRoute[TOKEN_ROUTE] ?? 0).toBe(0);
    expect(r.out + r.err).not.toContain(token);
  }, 30_000);

  it("whoami names the Azure CLI credential and whom its token names (table and json), the token nowhere", async () => {
    const table = await stackwarden(["whoami"], signedIn);
    expect(table.err).toBe("");
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/^Credential\s+Azure CLI \(AzureCliCredential\)$/m);
    expect(table.out).toMatch(/^Principal\s+object id [0-9a-f-]{36}, app id [0-9a-f-]{36}, tenant [0-9a-f-]{36}$/m);
    expect(table.out).toMatch(/^ARM token\s+for https:\/\/management\.azure\.com\/, expires \d{4}-\d\d-\d\dT\S+ \(in \d+ min\)$/m);
    expect(table.out).toMatch(new RegExp(`^IMDS\\s+${noImds.replace(/[.:/]/g, "\\$&")}: not readable: .*ECONNREFUSED`, "m"));

    const json = await stackwarden(["whoami", "--output", "json"], signedIn);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.out) as { credential: Record<string, unknown>; instance: unknown; imdsProblem: string };
    expect(doc.credential).toMatchObject({
      id: "AzureCliCredential",
      label: "Azure CLI",
      tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47",
    });
    expect(doc.instance).toBeNull();
    expect(doc.imdsProblem).toMatch(/ECONNREFUSED/);
    expect(table.out + json.out).not.toContain(token);
  }, 30_000);

  it("AZURE_TOKEN_CREDENTIALS=AzureCliCredential (what the workflows set after azure/login) asks nothing else, not even IMDS", async () => {
    const r = await stackwarden(["whoami", "--output", "json"], signedIn, {
      STACKWARDEN_IMDS_ENDPOINT: "",
      AZURE_TOKEN_CREDENTIALS: "AzureCliCredential",
    });
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as { credential: { id: string }; imdsProblem: string };
    expect(doc.credential.id).toBe("AzureCliCredential");
    expect(doc.imdsProblem).toBe("not read (no managed identity answered and STACKWARDEN_IMDS_ENDPOINT is not set)");
  }, 30_000);
});

describe("signed out", () => {
  it("plan exits 1 with one line naming every credential tried and what each said", async () => {
    const r = await stackwarden(["plan", "--stack", "dev"], signedOut);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    const lines = r.err.split("\n").filter(Boolean);
    expect(lines, r.err).toHaveLength(1);
    expect(lines[0]).not.toContain("    at ");
    expect(lines[0]).toMatch(
      new RegExp(
        [
          "^stackwarden: .*no Azure credential could get a token; tried in order: ",
          "environment service principal: AZURE_CLIENT_SECRET and AZURE_CLIENT_CERTIFICATE_PATH are not set; ",
          "workload identity: AZURE_FEDERATED_TOKEN_FILE is not set; ",
          `managed identity via IMDS at ${noImds.replace(/[.:/]/g, "\\$&")}: ECONNREFUSED: .*\\(no IMDS here\\); `,
          "Azure CLI: Please run 'az login' from a command prompt to authenticate before using this credential; ",
          "Azure Developer CLI: .*\\. Sign in with az login \\(or azd auth login\\), or set AZURE_ACCESS_TOKEN",
        ].join(""),
      ),
    );
    expect(calls(join(signedOut, "calls.log"))).toHaveLength(1);
    expect(t.emu.stats.byRoute[TDE_ROUTE] ?? 0).toBe(0);
  }, 30_000);

  it("whoami exits 1 with the same one line", async () => {
    const r = await stackwarden(["whoami"], signedOut, { AZURE_TOKEN_CREDENTIALS: "dev" });
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err.trim()).toMatch(
      /^stackwarden: SW_CREDENTIAL_UNAVAILABLE: no Azure credential could get a token; tried in order: Azure CLI: Please run 'az login' from a command prompt to authenticate before using this credential; Azure Developer CLI: [^\n]*$/,
    );
  }, 30_000);
});
