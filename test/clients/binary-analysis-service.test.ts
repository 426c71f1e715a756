import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newClientSet } from "../../src/clients/client-set";
import { tempDir } from "../helpers/binary-samples";

/** STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: a URL is used as is; `embedded` starts the built-in service in this process. */
describe("the client set's binary analysis service", () => {
  it("a URL: a client for it, nothing started", async () => {
    const s = await newClientSet({ STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: "http://127.0.0.1:4000/binary-analysis/v1/" }).binaryAnalysis();
    expect([s.endpoint, s.embedded, s.workDir]).toEqual(["http://127.0.0.1:4000/binary-analysis/v1", false, undefined]);
    await s.close();
  });

  it("embedded: the built-in engine on a loopback port scans for real; close stops it and removes its upload directory", async () => {
    const s = await newClientSet({ STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: "embedded" }).binaryAnalysis();
    const dir = tempDir("stackwarden-embedded-test-");
    try {
      expect(s.embedded).toBe(true);
      expect(s.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/binary-analysis\/v1$/);
      const file = join(dir, "f.txt");
      writeFileSync(file, "hello MARKER-XYZ\n");
      const result = await s.client.applyYaraRules(file, [
        { name: "r.yar", source: 'rule m { strings: $a = "MARKER-XYZ" condition: $a }' },
      ]);
      expect(result.sources[0].matches.map((m) => [m.rule, m.strings[0]?.offset])).toEqual([["m", 6]]);
      expect(existsSync(s.workDir!)).toBe(true);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(existsSync(s.workDir!)).toBe(false);
    await expect(fetch(`${s.endpoint}/apply-yara-rules`, { method: "POST" })).rejects.toThrow();
  });

  it("unset or not a URL: a SettingsError naming the variable and the embedded choice", async () => {
    await expect(newClientSet({}).binaryAnalysis()).rejects.toThrow(
      /STACKWARDEN_BINARY_ANALYSIS_ENDPOINT is not set: .* or set it to embedded/,
    );
    await expect(newClientSet({ STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: "ftp://x" }).binaryAnalysis()).rejects.toThrow(
      /"ftp:" URLs are not supported/,
    );
  });
});
