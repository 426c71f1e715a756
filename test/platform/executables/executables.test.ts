import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bufferSource, withFileSource } from "../../../src/platform/executables/byte-source";
import { entropyOf, rangeEntropy } from "../../../src/platform/executables/entropy";
import { entryRegion, readExecutable, regionsOf } from "../../../src/platform/executables/executable-format";
import { detectPacker } from "../../../src/platform/executables/packer-detection";
import { rvaToOffset, type PeInfo } from "../../../src/platform/executables/pe-file";
import type { ElfInfo } from "../../../src/platform/executables/elf-file";
import { buildExecutableSample, type ExecutableSample } from "../../helpers/binary-samples";
import { buildPe } from "../../helpers/pe-builder";
import { rmSync } from "node:fs";

let sample: ExecutableSample;
beforeAll(async () => {
  sample = await buildExecutableSample();
});
afterAll(() => rmSync(sample.dir, { recursive: true, force: true }));

describe("ELF headers", () => {
  it("reads format, entry point, sections and imports of a compiled executable", async () => {
    const info = (await withFileSource(sample.exe, readExecutable)) as ElfInfo;
    expect(info.format).toBe("elf");
    expect(info.bits).toBe(64);
    expect(info.machine).toBe("x86-64");
    expect(["EXEC", "DYN"]).toContain(info.type);
    expect(entryRegion(info)?.name).toBe(".text");
    const names = info.sections.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining([".text", ".rodata", ".dynsym", ".dynstr"]));
    expect(info.needed).toContain("libc.so.6");
    if (sample.compiled) expect(info.imports).toContain("puts");
    expect(info.warnings).toEqual([]);
    expect(await withFileSource(sample.exe, (src) => detectPacker(src, info))).toBeUndefined();
  });

  it("recognises the UPX-packed copy by its l_info header and $Id, with segments instead of sections", async () => {
    const result = await withFileSource(sample.packed, async (src) => {
      const info = await readExecutable(src);
      return { info, packer: await detectPacker(src, info) };
    });
    expect(result.info.format).toBe("elf");
    expect((result.info as ElfInfo).sections).toEqual([]);
    expect(regionsOf(result.info).every((r) => r.name.startsWith("LOAD["))).toBe(true);
    expect(result.packer).toMatchObject({ name: "UPX", unpackable: true });
    expect(result.packer!.version).toMatch(/^3\.\d+/);
    expect(result.packer!.evidence.join(" ")).toContain('"UPX!" header');
  });

  it("reports a truncated file with warnings instead of failing", async () => {
    const bytes = readFileSync(sample.exe);
    const info = (await readExecutable(bufferSource(bytes.subarray(0, 4096)))) as ElfInfo;
    expect(info.format).toBe("elf");
    expect(info.warnings.length).toBeGreaterThan(0);
    expect(info.sections).toEqual([]);
  });
});

describe("PE headers", () => {
  it("reads a PE32+ file's machine, entry point, sections and imports", async () => {
    const pe = buildPe({
      imports: [
        { dll: "KERNEL32.dll", functions: ["ExitProcess", "GetStdHandle"] },
        { dll: "USER32.dll", functions: ["MessageBoxA"] },
      ],
    });
    const info = (await readExecutable(bufferSource(pe))) as PeInfo;
    expect(info).toMatchObject({
      format: "pe",
      kind: "PE32+",
      machine: "x86-64",
      subsystem: "console",
      dll: false,
      entryRva: 0x1000,
      imageBase: 0x140000000,
    });
    expect(info.sections.map((s) => [s.name, s.flags])).toEqual([
      [".text", "r-x"],
      [".rdata", "r--"],
    ]);
    expect(info.imports).toEqual([
      { dll: "KERNEL32.dll", functions: ["ExitProcess", "GetStdHandle"] },
      { dll: "USER32.dll", functions: ["MessageBoxA"] },
    ]);
    expect(entryRegion(info)?.name).toBe(".text");
    expect(rvaToOffset(info, 0x2004)).toBe(0x404);
    expect(await detectPacker(bufferSource(pe), info)).toBeUndefined();
  });

  it("names the packer from section names", async () => {
    const upx = buildPe({ sectionNames: ["UPX0", "UPX1"] });
    const info = await readExecutable(bufferSource(upx));
    expect(await detectPacker(bufferSource(upx), info)).toMatchObject({
      name: "UPX",
      unpackable: true,
      evidence: ["section names UPX0, UPX1"],
    });
    const aspack = buildPe({ sectionNames: [".text", ".aspack"] });
    const info2 = await readExecutable(bufferSource(aspack));
    expect(await detectPacker(bufferSource(aspack), info2)).toMatchObject({ name: "ASPack", unpackable: false });
  });

  it("treats a broken PE header as an unknown format, with the reason", async () => {
    const pe = buildPe();
    pe.write("XX", 0x80, "latin1");
    expect(await readExecutable(bufferSource(pe))).toEqual({
      format: "unknown",
      reason: 'not a PE file (no "PE\\0\\0" signature at 0x80)',
    });
  });
});

describe("entropy", () => {
  it("is 0 for uniform bytes, near 8 for random bytes, and the same streamed as whole", async () => {
    expect(entropyOf(Buffer.alloc(4096))).toBe(0);
    const random = randomBytes(3 << 20);
    expect(entropyOf(random)).toBeGreaterThan(7.99);
    expect(await rangeEntropy(bufferSource(random), 0, random.length)).toBeCloseTo(entropyOf(random), 10);
    expect(await rangeEntropy(bufferSource(random), 100, 1000)).toBeCloseTo(entropyOf(random.subarray(100, 1100)), 10);
  });

  it("treats random bytes as no executable at all", async () => {
    expect((await readExecutable(bufferSource(randomBytes(1024)))).format).toBe("unknown");
  });
});
