import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { devEstate } from "../../services/certificates/certificates-kit";
import { startScriptedServer, text } from "../../platform/http/scripted-server";
import { runCliWith, stackDir } from "./cli-harness";

/**
 * `stackwarden probe` against the emulator's example estate: the example stack's probes pass with
 * only the endpoint and key variables set; a probe whose record does not exist exits 4 and shows
 * the issuer's error; settings that keep a probe from running exit 1 before anything is sent.
 */
let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ seed: devEstate() });
});
afterAll(async () => {
  await t?.close();
});

// `probe` keeps each run for check: here, outside the checkout.
const probeDir = mkdtempSync(join(tmpdir(), "stackwarden-probe-cli-"));
afterAll(() => rmSync(probeDir, { recursive: true, force: true }));

const keys = () => ({
  PATH: process.env.PATH,
  STACKWARDEN_PROBE_DIR: probeDir,
  STACKWARDEN_APISETU_ENDPOINT: `${t.url}/apisetu`,
  STACKWARDEN_APISETU_API_KEY: "probe-test-key",
  // A credential too: it appears in no output, like the key.
  STACKWARDEN_APISETU_CLIENT_ID: "probe-test-client-4f1a",
});

/** `stackwarden probe argv` in-process; its code, stdout and stderr (the tests compare the whole run). */
async function probe(argv: string[], env: NodeJS.ProcessEnv, cwd = PROJECT_ROOT) {
  const { code, out, err } = await runCliWith(["probe", ...argv], { cwd, env });
  return { code, out, err };
}

const ADMN_STACK = (demo: string) => `config:
  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000
  stackwarden:probes:
    - name: missing-tc
      issuer: lawcollegeandaman
      doctype: trcer
      parameters: { admissionNo: "\${env:TC_ADMN:-${demo}}", fullName: "\${env:TC_NAME:-Arun Ekka}" }
`;

describe("stackwarden probe", () => {
  it("--stack dev issues and checks a document from each of the four issuers, and exits 0", async () => {
    const r = await probe(["--stack", "dev"], keys());
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const lines = r.out.split("\n");
    expect(lines[0]).toBe(`Probes of stack dev against ${t.url}/apisetu`);
    for (const target of ["newindia/hlipc", "swavlambancard/govid", "mbose/sscer", "lawcollegeandaman/trcer"]) {
      expect(lines.find((l) => l.includes(target))).toMatch(/^ {2}PASS {2}\S+ +\S+ +(pdf|xml) +\d+ ms +\d+ B {2}sha256 [0-9a-f]{16}$/);
    }
    expect(lines.at(-1)).toBe("4 probe(s): 4 passed, 0 failed");
  });

  it("--output json keeps only outcome, latency, size and sha-256 of each document", async () => {
    const r = await probe(["--stack", "dev", "--output", "json"], keys());
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { summary: object; results: Record<string, unknown>[] };
    expect(doc.summary).toEqual({ probes: 4, passed: 4, failed: 0 });
    expect(doc.results.map((x) => x.issuer)).toEqual(["newindia", "swavlambancard", "mbose", "lawcollegeandaman"]);
    for (const x of doc.results) {
      expect(Object.keys(x).sort()).toEqual([
        "doctype",
        "format",
        "issuer",
        "latencyMs",
        "name",
        "outcome",
        "sha256",
        "size",
        "source",
        "status",
      ]);
      expect(x).toMatchObject({ outcome: "passed", status: 200, source: { file: "stacks/Pulumi.dev.yaml" } });
      expect(x.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    // The same records give the same documents on every run.
    const again = JSON.parse((await probe(["--stack", "dev", "--output", "json"], keys())).out) as typeof doc;
    expect(again.results.map((x) => x.sha256)).toEqual(doc.results.map((x) => x.sha256));
  });

  it("a probe whose record does not exist exits 4 and shows the issuer's error", async () => {
    const r = await probe(["--stack", "dev"], { ...keys(), PROBE_TRCER_ADMN_NO: "00000" });
    expect(r.code).toBe(4);
    const lines = r.out.split("\n");
    const at = lines.findIndex((l) => l.includes("lawcollegeandaman/trcer"));
    expect(lines[at]).toMatch(/^ {2}FAIL {2}transfer-certificate/);
    expect(lines[at + 1].trim()).toBe("HTTP 404 record_not_found: No record found");
    expect(lines.at(-1)).toBe("4 probe(s): 3 passed, 1 failed");
    expect(r.out).not.toContain("00000");

    const dir = stackDir({ "Pulumi.t.yaml": ADMN_STACK("00001") });
    const json = await probe(["--config", "Pulumi.t.yaml", "--output", "json"], keys(), dir);
    expect(json.code).toBe(4);
    expect((JSON.parse(json.out) as { results: unknown[] }).results).toEqual([
      expect.objectContaining({ outcome: "failed", status: 404, error: { code: "record_not_found", message: "No record found" } }),
    ]);
  });

  it("an issuer that refuses the key fails the probe with its 401", async () => {
    const own = await startTestEmulator({
      seed: seedFromYaml(`certificates:\n  accept: { apiKeys: [the-only-key] }\n  records: []\n`),
    });
    try {
      const dir = stackDir({ "Pulumi.t.yaml": ADMN_STACK("99123") });
      const r = await probe(["--config", "Pulumi.t.yaml"], { ...keys(), STACKWARDEN_APISETU_ENDPOINT: `${own.url}/apisetu` }, dir);
      expect(r.code).toBe(4);
      expect(r.out).toContain("HTTP 401 invalid_authentication: Authentication failed");
      for (const key of ["probe-test-key", "probe-test-client-4f1a"]) expect(r.out + r.err).not.toContain(key);
    } finally {
      await own.close();
    }
  });

  it("a document that fails its check fails the probe with the reason, and pdf.js prints nothing", async () => {
    const srv = await startScriptedServer((q, res) =>
      q.url.includes("/trcer/")
        ? text(res, 200, "%PDF-1.3\ngarbage without xref\n", "application/pdf")
        : text(res, 200, "<html>portal</html>", "text/html"),
    );
    try {
      const dir = stackDir({ "Pulumi.t.yaml": ADMN_STACK("99123") });
      const printed: string[] = [];
      const spies = (["log", "warn", "error", "info"] as const).map((m) =>
        vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void printed.push(a.join(" "))),
      );
      let r;
      try {
        r = await probe(["--config", "Pulumi.t.yaml"], { ...keys(), STACKWARDEN_APISETU_ENDPOINT: srv.url }, dir);
      } finally {
        for (const s of spies) s.mockRestore();
      }
      expect(printed).toEqual([]);
      expect(r.code).toBe(4);
      expect(r.err).toBe("");
      expect(r.out.split("\n")[2].trim()).toBe("check failed: the PDF does not parse: Invalid PDF structure.");
    } finally {
      await srv.close();
    }
  });

  it("exits 1 with one line when a probe cannot run, before anything is sent", async () => {
    const before = t.emu.stats.total;
    const { STACKWARDEN_APISETU_API_KEY: _k, ...noKey } = keys();
    const r1 = await probe(["--stack", "dev"], noKey);
    expect(r1).toEqual({
      code: 1,
      out: "",
      err: "stackwarden: SW_SETTING_INVALID: STACKWARDEN_APISETU_API_KEY is not set: the certificate issuers need an API key and a client id (the emulator accepts any non-empty values unless its seed names the keys)",
    });
    const { STACKWARDEN_APISETU_ENDPOINT: _e, ...real } = keys();
    const r2 = await probe(["--stack", "dev"], real);
    expect(r2.code).toBe(1);
    expect(r2.err).toBe(
      "stackwarden: SW_SETTING_INVALID: probe health-policy: parameter FullName (Full name): PROBE_HLIPC_FULL_NAME is not set, and its demo value (invented, for the emulator's example estate) is never sent to https://apisetu.gov.in/; set PROBE_HLIPC_FULL_NAME, or point STACKWARDEN_APISETU_ENDPOINT at the emulator",
    );
    const dir = stackDir({
      "Pulumi.t.yaml": ADMN_STACK("1").replace('"${env:TC_NAME:-Arun Ekka}"', '"${env:TC_NAME}"'),
    });
    const r3 = await probe(["--config", "Pulumi.t.yaml"], keys(), dir);
    expect(r3).toMatchObject({
      code: 1,
      err: "stackwarden: SW_SETTING_INVALID: probe missing-tc: parameter FullName (Full name): set the environment variable TC_NAME",
    });
    const r4 = await probe(["--stack", "dev", "--output", "xml"], keys());
    expect(r4.code).toBe(1);
    expect(r4.err).toMatch(/^stackwarden probe: SW_USAGE: option '--output <format>' argument 'xml' is invalid/);
    expect(t.emu.stats.total).toBe(before);
  });

  it("a stack without probes has nothing to do", async () => {
    const dir = stackDir({ "Pulumi.t.yaml": "config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n" });
    expect(await probe(["--config", "Pulumi.t.yaml"], {}, dir)).toEqual({
      code: 0,
      out: "Stack t has no stackwarden:probes.",
      err: "",
    });
  });

  it("--help names the exit codes and the variables", async () => {
    const r = await probe(["--help"], {});
    expect(r.code).toBe(0);
    expect(r.out).toContain("exit 0 all pass, 4 a probe failed, 1 error");
    expect(r.out).toContain("STACKWARDEN_APISETU_API_KEY");
  });
});
