import { describe, expect, it } from "vitest";
import { engineIdentity } from "../../../src/domain/artifacts/engine-identity";
import {
  decodeEntry,
  encodeEntry,
  ENTRY_FORMAT,
  scanCacheKey,
  type ScanCacheInput,
  type ScanOutcome,
} from "../../../src/domain/artifacts/scan-cache-entry";
import { DEFAULT_SCAN_CACHE_MAX_BYTES, scanCacheSettingsFromEnv } from "../../../src/platform/settings/scan-cache-settings";
import { SettingsError } from "../../../src/platform/settings/endpoints";

const input: ScanCacheInput = {
  sha256: "a".repeat(64),
  size: 42,
  rulesDigest: "b".repeat(64),
  engine: "@litko/yara-x 0.3.0",
  version: "0.1.0",
};
const outcome: ScanOutcome = {
  scannedUnpacked: false,
  matches: [
    {
      rule: "marker",
      ruleFile: "rules/a.yar",
      tags: ["t"],
      meta: { severity: "high" },
      strings: [{ identifier: "$a", offset: 7, length: 3 }],
      offset: 7,
      length: 3,
    },
  ],
  verdict: "matched",
};
const SCANNED_AT = "2026-11-25T12:00:00.000Z";

describe("the scan cache key", () => {
  it("changes with every part of the input", () => {
    const base = scanCacheKey(input);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    for (const change of [
      { sha256: "c".repeat(64) },
      { size: 43 },
      { rulesDigest: "d".repeat(64) },
      { engine: "@litko/yara-x 0.3.1" },
      { version: "0.2.0" },
    ]) {
      expect(scanCacheKey({ ...input, ...change }), JSON.stringify(change)).not.toBe(base);
    }
    expect(scanCacheKey({ ...input })).toBe(base);
  });
});

describe("a scan cache entry", () => {
  const text = encodeEntry({ input, scannedAt: SCANNED_AT, outcome });
  const key = scanCacheKey(input);

  it("is one line of JSON and the sha-256 of that line, and reads back whole", () => {
    const lines = text.split("\n");
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0])).toMatchObject({ format: ENTRY_FORMAT, key, input, scannedAt: SCANNED_AT, outcome });
    expect(lines[1]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(decodeEntry(text, key)).toEqual({ ok: true, entry: { key, input, scannedAt: SCANNED_AT, outcome } });
  });

  it("is refused when cut, edited, or holding another key's entry", () => {
    const problem = (t: string, k = key) => {
      const d = decodeEntry(t, k);
      return d.ok ? "accepted" : d.problem;
    };
    expect(problem(text.slice(0, text.length - 20))).toBe("it is truncated or has extra lines");
    expect(problem(text.replace(/sha256:[0-9a-f]{64}/, "sha256:0123"))).toBe("its integrity digest is missing or malformed");
    expect(problem(text.slice(0, text.indexOf("\n")))).toBe("it is truncated or has extra lines");
    expect(problem(text.slice(0, 100))).toBe("it is truncated or has extra lines");
    expect(problem("")).toBe("it is truncated or has extra lines");
    // One byte changed: a match's offset.
    expect(problem(text.replace('"offset":7', '"offset":8'))).toBe("its content does not match its integrity digest");
    // An entry copied over another key's file.
    expect(problem(text, scanCacheKey({ ...input, sha256: "e".repeat(64) }))).toBe("it holds the entry of another key");
  });

  it("is refused when its digest is right but its key does not follow from its input (written by hand)", async () => {
    const { createHash } = await import("node:crypto");
    const forge = (doc: object) => {
      const body = JSON.stringify(doc);
      return `${body}\nsha256:${createHash("sha256").update(body).digest("hex")}\n`;
    };
    const wrongInput = { format: ENTRY_FORMAT, key, input: { ...input, engine: "@litko/yara-x 0.2.0" }, scannedAt: SCANNED_AT, outcome };
    expect(decodeEntry(forge(wrongInput), key)).toEqual({ ok: false, problem: "it holds the entry of another key" });
    expect(decodeEntry(forge({ ...wrongInput, input, format: "stackwarden-scan-cache/0" }), key)).toMatchObject({
      ok: false,
      problem: expect.stringContaining("its format is"),
    });
    expect(decodeEntry(forge({ format: ENTRY_FORMAT, key, input, scannedAt: SCANNED_AT }), key)).toMatchObject({ ok: false });
  });
});

describe("the engine identity in a yara_command", () => {
  it("is the engine and version that stackwarden's service names", () => {
    expect(engineIdentity("http://x/binary-analysis/v1", "@litko/yara-x 0.3.0: scanFile(upload) with rules[0..4]")).toBe(
      "@litko/yara-x 0.3.0",
    );
    expect(engineIdentity("http://y/v1", "@litko/yara-x 0.3.0: scanFile(unpacked upload) with rules[0..0]")).toBe("@litko/yara-x 0.3.0");
  });

  it("is the program at the endpoint for restful4up, which names no version", () => {
    const said =
      "yara --print-strings --print-string-length --fail-on-warnings /tmp/restful4up/1615496936444_yara_workspace/rules/c35143ae /tmp/restful4up/1615496936444_yara_workspace/app_yoAVQ3/1615496937530.invactive";
    expect(engineIdentity("https://scan.example/v1", said)).toBe("yara at https://scan.example/v1");
    expect(engineIdentity("https://other.example/v1", said)).not.toBe(engineIdentity("https://scan.example/v1", said));
    expect(engineIdentity("https://scan.example/v1", "/usr/bin/yara -s rules file")).toBe("yara at https://scan.example/v1");
    expect(engineIdentity("https://scan.example/v1", "")).toBe("an unnamed engine at https://scan.example/v1");
  });
});

describe("the scan cache's settings", () => {
  it("default to on, 64 MiB, under XDG_CACHE_HOME or ~/.cache", () => {
    expect(scanCacheSettingsFromEnv({ HOME: "/home/u" })).toEqual({
      enabled: true,
      dir: "/home/u/.cache/stackwarden/scans",
      maxBytes: DEFAULT_SCAN_CACHE_MAX_BYTES,
    });
    expect(DEFAULT_SCAN_CACHE_MAX_BYTES).toBe(64 * 1024 * 1024);
    expect(scanCacheSettingsFromEnv({ HOME: "/home/u", XDG_CACHE_HOME: "/var/cache/u" }).dir).toBe("/var/cache/u/stackwarden/scans");
    // A relative XDG_CACHE_HOME is ignored, as the specification says.
    expect(scanCacheSettingsFromEnv({ HOME: "/home/u", XDG_CACHE_HOME: "rel" }).dir).toBe("/home/u/.cache/stackwarden/scans");
  });

  it("follow STACKWARDEN_CACHE_DIR, STACKWARDEN_SCAN_CACHE and STACKWARDEN_SCAN_CACHE_MAX_BYTES", () => {
    expect(
      scanCacheSettingsFromEnv({
        HOME: "/home/u",
        XDG_CACHE_HOME: "/var/cache/u",
        STACKWARDEN_CACHE_DIR: "/srv/sw-cache",
        STACKWARDEN_SCAN_CACHE: "OFF",
        STACKWARDEN_SCAN_CACHE_MAX_BYTES: "512K",
      }),
    ).toEqual({ enabled: false, dir: "/srv/sw-cache/scans", maxBytes: 512 * 1024 });
    const max = (v: string) => scanCacheSettingsFromEnv({ HOME: "/h", STACKWARDEN_SCAN_CACHE_MAX_BYTES: v }).maxBytes;
    expect([max("4096"), max("64M"), max("64MiB"), max("1g"), max(" 2 MB ")]).toEqual([4096, 64 << 20, 64 << 20, 1 << 30, 2 << 20]);
    for (const on of ["on", "1", "true", "yes", ""])
      expect(scanCacheSettingsFromEnv({ HOME: "/h", STACKWARDEN_SCAN_CACHE: on }).enabled).toBe(true);
  });

  it("refuse what they cannot read, naming the variable", () => {
    expect(() => scanCacheSettingsFromEnv({ STACKWARDEN_SCAN_CACHE: "sometimes" })).toThrow(
      new SettingsError('STACKWARDEN_SCAN_CACHE: "sometimes" is neither on nor off'),
    );
    for (const bad of ["0", "-5", "12 parsecs", "1.5M"]) {
      expect(() => scanCacheSettingsFromEnv({ STACKWARDEN_SCAN_CACHE_MAX_BYTES: bad }), bad).toThrow(
        /^STACKWARDEN_SCAN_CACHE_MAX_BYTES: ".*" is not a size/,
      );
    }
  });
});
