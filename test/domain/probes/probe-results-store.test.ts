import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  probeResultsName,
  readProbeRun as readFromStore,
  writeProbeRun as writeToStore,
} from "../../../src/domain/probes/probe-results-store";
import { FileDocumentStore } from "../../../src/platform/state/files/file-document-store";
import type { ProbeRun } from "../../../src/domain/probes/probe-runner";
import { redactValues } from "../../../src/domain/probes/redact-values";
import { stateDirs } from "../../../src/platform/settings/state-dirs";

/** The last probe run of a stack, kept on disk for `check`: what is written, how it is read back. */
const dir = mkdtempSync(join(tmpdir(), "stackwarden-probe-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The store as the probe directory is kept (`<dir>/<stack>.json`), world-readable as before. */
const files = (d: string) => new FileDocumentStore(d, 0o644);
const writeProbeRun = (d: string, stack: string, command: string, run: ProbeRun, at?: Date) =>
  writeToStore(files(d), stack, command, run, at);
const readProbeRun = (d: string, stack: string) => readFromStore(files(d), stack);

const RUN: ProbeRun = {
  endpoint: "http://127.0.0.1:4000/apisetu",
  startedAt: "2025-06-15T11:00:00.000Z",
  passed: 1,
  failed: 1,
  results: [
    {
      name: "tc",
      issuer: "lawcollegeandaman",
      doctype: "trcer",
      format: "pdf",
      outcome: "passed",
      latencyMs: 12,
      status: 200,
      size: 2624,
      sha256: "f".repeat(64),
      source: { file: "stacks/Pulumi.dev.yaml", line: 75, column: 7 },
    },
    {
      name: "missing",
      issuer: "lawcollegeandaman",
      doctype: "trcer",
      format: "pdf",
      outcome: "failed",
      latencyMs: 3,
      status: 404,
      error: { code: "record_not_found", message: "No record found" },
    },
  ],
};

describe("the probe results store", () => {
  it("writes <dir>/<stack>.json atomically and reads back exactly what a probe keeps", async () => {
    const path = await writeProbeRun(join(dir, "a", "b"), "dev", "apply --probe", RUN, new Date("2025-06-15T11:00:02Z"));
    expect(path).toBe(join(dir, "a", "b", "dev.json"));
    expect(readdirSync(join(dir, "a", "b"))).toEqual(["dev.json"]); // no temporary file left
    const lookup = await readProbeRun(join(dir, "a", "b"), "dev");
    expect(lookup).toEqual({
      found: true,
      path,
      run: {
        version: 1,
        stack: "dev",
        command: "apply --probe",
        endpoint: RUN.endpoint,
        startedAt: RUN.startedAt,
        finishedAt: "2025-06-15T11:00:02.000Z",
        results: RUN.results,
      },
    });
  });

  it("drops anything a result carries beyond what is kept", async () => {
    const leaky = { ...RUN, results: [{ ...RUN.results[0], parameters: { FullName: "Arun Ekka" }, document: "JVBERi0..." }] };
    const path = await writeProbeRun(dir, "leaky", "probe", leaky as ProbeRun);
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain("Arun Ekka");
    expect(text).not.toContain("JVBERi0");
    expect(Object.keys((JSON.parse(text) as { results: object[] }).results[0]).sort()).toEqual([
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
  });

  it("a missing file is no error; a damaged one neither (reason and detail say what was found)", async () => {
    expect(await readProbeRun(dir, "never")).toEqual({ found: false, path: join(dir, "never.json"), reason: "missing" });
    writeFileSync(join(dir, "cut.json"), '{"version":1,"results":[{"na');
    expect(await readProbeRun(dir, "cut")).toMatchObject({ found: false, reason: "unreadable", detail: "it is not JSON" });
    writeFileSync(join(dir, "odd.json"), '{"version":1}');
    expect(await readProbeRun(dir, "odd")).toMatchObject({ found: false, reason: "unreadable", detail: "it holds no results list" });
    // Entries without a name or a known outcome are dropped; the rest are read.
    writeFileSync(
      join(dir, "mixed.json"),
      JSON.stringify({ results: [{ outcome: "passed" }, { name: "x", outcome: "maybe" }, RUN.results[1]] }),
    );
    const mixed = await readProbeRun(dir, "mixed");
    expect(mixed.found && mixed.run.results).toEqual([RUN.results[1]]);
    expect(mixed.found && mixed.run.command).toBe("unknown");
  });

  it("a directory that cannot be written is one clear error naming the file and the fix", async () => {
    // A file where the directory should be: refused whoever runs the test (root ignores permissions).
    const blocked = join(dir, "blocked");
    writeFileSync(blocked, "not a directory");
    await expect(writeProbeRun(join(blocked, "probes"), "dev", "probe", RUN)).rejects.toThrow(
      `cannot keep the probe results in ${join(blocked, "probes", "dev.json")}: ENOTDIR; set --probe-dir or STACKWARDEN_PROBE_DIR to a writable directory`,
    );
  });

  it("the directory: --probe-dir over STACKWARDEN_PROBE_DIR over .stackwarden/probes; odd stack names are hashed", async () => {
    expect(stateDirs("/w", {}).probes).toBe("/w/.stackwarden/probes");
    expect(stateDirs("/w", { STACKWARDEN_PROBE_DIR: "shared/probes" }).probes).toBe("/w/shared/probes");
    expect(stateDirs("/w", { STACKWARDEN_PROBE_DIR: "shared" }, { probeDir: "/abs" }).probes).toBe("/abs");
    expect(files("/d").where(probeResultsName("../etc/passwd"))).toMatch(/^\/d\/stack-[0-9a-f]{16}\.json$/);
  });
});

describe("redactValues", () => {
  it("removes every parameter value from an issuer's text, whatever its case; short values stay", async () => {
    expect(redactValues("No record for ARUN EKKA (admission 99123) in 2017", ["Arun Ekka", "99123", "17"])).toBe(
      "No record for [redacted] (admission [redacted]) in 2017",
    );
    expect(redactValues("policy 99/01 (x)+ refused", ["99/01 (x)+"])).toBe("policy [redacted] refused");
    // The longer value first, so a value inside another does not leave part of it behind.
    expect(redactValues("Asha Verma and Asha", ["Asha", "Asha Verma"])).toBe("[redacted] and [redacted]");
  });
});
