import { createHash } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync, rmSync } from "node:fs";
import busboy from "busboy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/platform/http";
import { BinaryAnalysisClient } from "../../../src/services/binary-analysis/client";
import { renderPartialRule } from "../../../src/services/binary-analysis/partial-rule-text";
import type { RuleSource } from "../../../src/services/binary-analysis/types";
import { STATIC_NOTICE } from "../../../src/emulator/services/binary-analysis/static-report";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import {
  buildExecutableSample,
  EXE_WIDE_MARKER,
  markerRule,
  tempDir,
  writeSample,
  type ExecutableSample,
} from "../../helpers/binary-samples";

let emu: TestEmulator;
let client: BinaryAnalysisClient;
let sample: ExecutableSample;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  client = new BinaryAnalysisClient({ endpoint: `${emu.url}/binary-analysis/v1` });
  sample = await buildExecutableSample();
  dir = tempDir();
});
afterAll(async () => {
  await emu.close();
  rmSync(sample.dir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

const applyRequests = () => emu.emu.stats.byRoute["POST /binary-analysis/v1/apply-yara-rules"] ?? 0;

describe("apply-yara-rules through the client", () => {
  it("sends 25 rule sources in 3 requests and merges the results in rule order, with exact offsets", async () => {
    // Every third rule's marker is in the file, at a known offset.
    const parts: string[] = [];
    const offsets = new Map<number, number>();
    let at = 0;
    for (let i = 0; i < 25; i++) {
      const filler = "x".repeat(97 + i);
      parts.push(filler);
      at += filler.length;
      if (i % 3 === 0) {
        offsets.set(i, at);
        parts.push(`MARKER-${i}-END`);
        at += `MARKER-${i}-END`.length;
      }
    }
    const file = writeSample(dir, "markers.txt", parts);
    const rules: RuleSource[] = Array.from({ length: 25 }, (_, i) => ({
      name: `rules/r${i}.yar`,
      source: markerRule(`r${i}`, `MARKER-${i}-END`),
    }));
    const before = applyRequests();
    let fileRead = 0;
    const result = await new BinaryAnalysisClient({ endpoint: client.endpoint, concurrency: 3 }).applyYaraRules(file, rules, {
      onFileRead: () => (fileRead += 1),
    });
    expect(applyRequests() - before).toBe(3);
    // Three uploads of the file; the caller hears once that it has been read.
    expect(fileRead).toBe(1);
    expect(result.requests).toBe(3);
    expect(result.sources.map((s) => [s.index, s.source])).toEqual(rules.map((r, i) => [i, r.name]));
    for (const s of result.sources) {
      const expected = offsets.get(s.index);
      if (expected === undefined) expect(s.matches).toEqual([]);
      else
        expect(s.matches).toEqual([
          {
            rule: `r${s.index}`,
            tags: ["sample"],
            meta: { description: "benign test marker" },
            strings: [{ identifier: "$m", offset: expected, length: `MARKER-${s.index}-END`.length, data: `MARKER-${s.index}-END` }],
          },
        ]);
    }
  });

  it("reports every occurrence with its offset, and wide strings with their bytes", async () => {
    const wide = Buffer.from("WIDE-MARK", "utf16le");
    const file = writeSample(dir, "twice.bin", ["\0".repeat(10), "TWICE", "\x01".repeat(5), "TWICE", "..", wide]);
    const result = await client.applyYaraRules(file, [
      { name: "t.yar", source: 'rule twice { strings: $t = "TWICE" $w = "WIDE-MARK" wide condition: all of them }' },
    ]);
    expect(result.sources[0].matches[0].strings).toEqual([
      { identifier: "$t", offset: 10, length: 5, data: "TWICE" },
      { identifier: "$t", offset: 20, length: 5, data: "TWICE" },
      { identifier: "$w", offset: 27, length: 18, data: "W\\x00I\\x00D\\x00E\\x00-\\x00M\\x00A\\x00R\\x00K\\x00" },
    ]);
  });

  it("names the rule source that does not compile, with the compiler's message", async () => {
    const file = writeSample(dir, "plain.txt", ["nothing to see"]);
    const rules: RuleSource[] = Array.from({ length: 12 }, (_, i) => ({ name: `r${i}.yar`, source: markerRule(`ok${i}`, `OK-${i}`) }));
    rules[11] = {
      name: "stacks/dev/signatures/broken.yar",
      source: 'rule fine { condition: true }\n\nrule broken {\n  strings: $a = "x"\n  condition: $b\n}\n',
    };
    const e = await client.applyYaraRules(file, rules).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    const err = e as ApiError;
    expect(err.status).toBe(400);
    expect(err.code).toBe("RuleCompileError");
    expect(err.message).toContain(
      "rule source stacks/dev/signatures/broken.yar (rules[11]) does not compile (in rule broken, line 5, column 14)",
    );
    expect(err.message).toContain("unknown pattern `$b`");
  });

  it("finds a match that only shows after unpacking, and misses it without", async () => {
    const rules = [{ name: "marker.yar", source: markerRule("packed_marker", sample.marker) }];
    expect(readFileSync(sample.packed).includes(Buffer.from(sample.marker))).toBe(false);
    const without = await client.applyYaraRules(sample.packed, rules);
    expect(without.sources[0].matches).toEqual([]);
    expect(without.unpacking).toEqual({ status: "not-requested" });
    const withUnpacking = await client.applyYaraRules(sample.packed, rules, { unpack: true });
    expect(withUnpacking.sources[0].matches.map((m) => m.rule)).toEqual(["packed_marker"]);
    expect(withUnpacking.unpacking).toMatchObject({
      status: "unpacked",
      packer: expect.stringMatching(/^UPX 3\./),
      unpackedSize: readFileSync(sample.exe).length,
    });
    // The offset is the marker's offset in the unpacked file (which is the original).
    expect(withUnpacking.sources[0].matches[0].strings[0].offset).toBe(readFileSync(sample.exe).indexOf(sample.marker));
    // A file that is not packed is scanned as sent, even when unpacking is asked for.
    const plain = await client.applyYaraRules(sample.exe, rules, { unpack: true });
    expect(plain.unpacking).toEqual({ status: "not-packed" });
    expect(plain.sources[0].matches).toHaveLength(1);
  });
});

describe("unpack", () => {
  it("round-trips a UPX-packed copy back to the original bytes", async () => {
    const unpacked = await client.unpack(sample.packed);
    expect(unpacked.equals(readFileSync(sample.exe))).toBe(true);
  });

  it("answers a file that is not packed with the spec's 400", async () => {
    const e = (await client.unpack(sample.exe).catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code]).toEqual([400, "NotPacked"]);
    expect(e.message).toContain("not packed");
  });

  it("says why a damaged packed file cannot be unpacked", async () => {
    const bytes = readFileSync(sample.packed);
    const damaged = writeSample(dir, "damaged.upx", [bytes.subarray(0, bytes.length - 200)]);
    const e = (await client.unpack(damaged).catch((x: unknown) => x)) as ApiError;
    expect([e.status, e.code]).toEqual([400, "UnpackFailed"]);
    expect(e.message).toMatch(/packed \(UPX [\d.]+\) but could not be unpacked: \w+Exception/);
  });
});

describe("emulation-output", () => {
  it("is a static report that says so: format, entry point, sections with entropy, imports, packer, unpacking", async () => {
    const plain = await client.emulationOutput(sample.exe);
    expect(plain[0]).toBe(STATIC_NOTICE);
    expect(plain).toContain("format: ELF 64-bit little-endian x86-64, type DYN");
    expect(plain.find((l) => l.startsWith("entry point: 0x"))).toMatch(/\(in \.text\)$/);
    expect(plain.find((l) => l.startsWith("section .text:"))).toMatch(/flags ax, entropy \d\.\d\d$/);
    if (sample.compiled) expect(plain.find((l) => l.startsWith("imports:"))).toContain("puts");
    expect(plain).toContain("packer: none detected");
    expect(plain).toContain("unpacking: not needed (no packer detected)");

    const packed = await client.emulationOutput(sample.packed);
    expect(packed[0]).toBe(STATIC_NOTICE);
    expect(packed.find((l) => l.startsWith("packer:"))).toMatch(/^packer: UPX 3\.\d+ \("UPX!" header at 0x[0-9a-f]+/);
    expect(packed).toContain(`unpacking: worked (UPX): ${readFileSync(sample.packed).length} -> ${readFileSync(sample.exe).length} bytes`);
    expect(packed).toContain("unpacked format: ELF 64-bit little-endian x86-64, type DYN");
    const sections = packed.filter((l) => l.startsWith("segment LOAD["));
    expect(sections.length).toBeGreaterThan(0);
  });
});

describe("generate-partial-yara-rules", () => {
  it("ranks the file's own strings first, leaves out format boilerplate, and has no condition", async () => {
    const rule = await client.generatePartialYaraRules(sample.exe);
    const texts = rule.strings.map(([, t]) => t);
    expect(texts).toContain(sample.marker);
    if (sample.compiled) expect(rule.strings).toContainEqual([expect.stringMatching(/^wide_\d+$/), EXE_WIDE_MARKER]);
    for (const boiler of [".text", ".rodata", ".dynsym", "GLIBC_2.2.5", "libc.so.6", "__libc_start_main", "crtstuff.c"])
      expect(texts).not.toContain(boiler);
    const bytes = readFileSync(sample.exe);
    expect(rule.meta.sha256sum).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(rule.meta.md5sum).toBe(createHash("md5").update(bytes).digest("hex"));
    expect(rule.meta.sha512sum).toBe(createHash("sha512").update(bytes).digest("hex"));
    expect(new Date(rule.meta.date).getTime()).not.toBeNaN();
    expect(renderPartialRule(rule)).not.toContain("condition");
  });

  it("honours strings_to_ignore and minimum_string_length, and unpacks when asked", async () => {
    const rule = await client.generatePartialYaraRules(sample.exe, { stringsToIgnore: [sample.marker], minimumStringLength: 40 });
    expect(rule.strings.map(([, t]) => t)).not.toContain(sample.marker);
    expect(rule.strings.every(([, t]) => t.length >= 40)).toBe(true);
    const fromPacked = await client.generatePartialYaraRules(sample.packed, { unpack: true });
    expect(fromPacked.strings.map(([, t]) => t)).toContain(sample.marker);
    expect(fromPacked.meta.unpacked_from_sha256).toBe(createHash("sha256").update(readFileSync(sample.packed)).digest("hex"));
  });
});

describe("the multipart body", () => {
  it("carries the spec's fields, read back by a real multipart parser; the file is streamed whole", async () => {
    const seen: { fields: [string, string][]; file?: { field: string; filename: string; sha256: string; size: number } } = { fields: [] };
    const server = createServer((req: IncomingMessage, res) => {
      const bb = busboy({ headers: req.headers });
      bb.on("field", (name, value) => seen.fields.push([name, value]));
      bb.on("file", (field, stream, info) => {
        const h = createHash("sha256");
        let size = 0;
        stream.on("data", (c: Buffer) => {
          h.update(c);
          size += c.length;
        });
        stream.on("end", () => (seen.file = { field, filename: info.filename ?? "", sha256: h.digest("hex"), size }));
      });
      bb.on("close", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ result: { yara_command: "yara ...", is_success: true, matched_yara_rules: [] } }));
      });
      req.pipe(bb);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const big = writeSample(dir, "big.bin", [Buffer.alloc(24 << 20, 0x5a), "tail"]);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const rules: RuleSource[] = [
        { name: "a.yar", source: markerRule("a", "A") },
        { name: "b.yar", source: "rule b { condition: true }" },
      ];
      await new BinaryAnalysisClient({ endpoint: url }).applyYaraRules(big, rules, { unpack: true });
      expect(seen.file).toEqual({
        field: "file",
        filename: "big.bin",
        size: (24 << 20) + 4,
        sha256: createHash("sha256").update(readFileSync(big)).digest("hex"),
      });
      expect(seen.fields).toEqual([
        ["rules", Buffer.from(rules[0].source).toString("base64")],
        ["rules", Buffer.from(rules[1].source).toString("base64")],
        ["is_unpacking_required", "true"],
      ]);
    } finally {
      server.close();
    }
  });
});

describe("clean", () => {
  it("answers 204", async () => {
    await expect(client.clean()).resolves.toBeUndefined();
  });
});
