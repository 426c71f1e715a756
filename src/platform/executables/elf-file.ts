import { type ByteSource, FieldReader, TruncatedError, cString } from "./byte-source";

/** One ELF program header (a segment as the loader maps it). */
export interface ElfSegment {
  type: string;
  /** `r`, `w`, `x` or `-` for each. */
  flags: string;
  offset: number;
  fileSize: number;
  vaddr: number;
  memSize: number;
}

/** One ELF section header. */
export interface ElfSection {
  name: string;
  type: number;
  /** `w` (writable), `a` (allocated), `x` (executable), as readelf prints them. */
  flags: string;
  addr: number;
  offset: number;
  size: number;
  /** SHT_NOBITS (.bss): occupies no bytes in the file. */
  noBits: boolean;
}

/** What the headers of an ELF file say. */
export interface ElfInfo {
  format: "elf";
  bits: 32 | 64;
  endian: "little" | "big";
  machine: string;
  /** `EXEC`, `DYN` (shared object or PIE), `REL`, `CORE`, or the number. */
  type: string;
  entry: number;
  segments: ElfSegment[];
  sections: ElfSection[];
  /** Libraries from DT_NEEDED. */
  needed: string[];
  /** Undefined dynamic symbols: what the file imports. */
  imports: string[];
  /** File offset just past the program header table (where a UPX stub keeps its `l_info`). */
  programHeadersEnd: number;
  /** Problems met while reading tables (truncated or implausible); the rest is still reported. */
  warnings: string[];
}

const MACHINES: Record<number, string> = {
  2: "SPARC",
  3: "x86",
  8: "MIPS",
  20: "PowerPC",
  21: "PowerPC64",
  22: "S390",
  40: "ARM",
  62: "x86-64",
  183: "AArch64",
  243: "RISC-V",
};
const TYPES: Record<number, string> = { 1: "REL", 2: "EXEC", 3: "DYN", 4: "CORE" };
const SEGMENT_TYPES: Record<number, string> = {
  0: "NULL",
  1: "LOAD",
  2: "DYNAMIC",
  3: "INTERP",
  4: "NOTE",
  6: "PHDR",
  7: "TLS",
  0x6474e550: "GNU_EH_FRAME",
  0x6474e551: "GNU_STACK",
  0x6474e552: "GNU_RELRO",
  0x6474e553: "GNU_PROPERTY",
};
const SHT_SYMTAB_DYN = 11;
const SHT_DYNAMIC = 6;
const SHT_NOBITS = 8;
const DT_NEEDED = 1;
/** Tables larger than this are not read: no real executable has them, a hostile one would exhaust memory. */
const MAX_TABLE_BYTES = 16 << 20;
const MAX_HEADERS = 4096;

/** Whether the bytes start with the ELF magic. */
export function isElf(head: Buffer): boolean {
  return head.length >= 4 && head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46;
}

/** Reads an ELF file's headers, sections, needed libraries and imported symbols. Throws TruncatedError when the ELF header itself is cut short. */
export async function parseElf(src: ByteSource): Promise<ElfInfo> {
  const head = await src.read(0, 64);
  if (!isElf(head)) throw new Error("not an ELF file (no \\x7fELF magic)");
  const cls = head[4];
  const data = head[5];
  if (cls !== 1 && cls !== 2) throw new Error(`unknown ELF class ${cls}`);
  if (data !== 1 && data !== 2) throw new Error(`unknown ELF data encoding ${data}`);
  const is64 = cls === 2;
  const r = new FieldReader(head, data === 1);
  const word = (o: number, what: string) => (is64 ? r.u64(o, what) : r.u32(o, what));
  const info: ElfInfo = {
    format: "elf",
    bits: is64 ? 64 : 32,
    endian: data === 1 ? "little" : "big",
    machine: MACHINES[r.u16(18)] ?? `machine ${r.u16(18)}`,
    type: TYPES[r.u16(16)] ?? `type ${r.u16(16)}`,
    entry: word(24, "e_entry"),
    segments: [],
    sections: [],
    needed: [],
    imports: [],
    programHeadersEnd: 0,
    warnings: [],
  };
  const phoff = word(is64 ? 32 : 28, "e_phoff");
  const shoff = word(is64 ? 40 : 32, "e_shoff");
  const phentsize = r.u16(is64 ? 54 : 42);
  const phnum = r.u16(is64 ? 56 : 44);
  const shentsize = r.u16(is64 ? 58 : 46);
  const shnum = r.u16(is64 ? 60 : 48);
  const shstrndx = r.u16(is64 ? 62 : 50);
  info.programHeadersEnd = phoff + phnum * phentsize;

  await readSegments(src, info, { is64, le: data === 1, phoff, phentsize, phnum });
  await readSections(src, info, { is64, le: data === 1, shoff, shentsize, shnum, shstrndx });
  return info;
}

async function readSegments(
  src: ByteSource,
  info: ElfInfo,
  h: { is64: boolean; le: boolean; phoff: number; phentsize: number; phnum: number },
): Promise<void> {
  if (h.phnum === 0) return;
  if (h.phnum > MAX_HEADERS || h.phentsize < (h.is64 ? 56 : 32)) {
    info.warnings.push(`implausible program header table (${h.phnum} entries of ${h.phentsize} bytes)`);
    return;
  }
  const buf = await src.read(h.phoff, h.phnum * h.phentsize);
  const r = new FieldReader(buf, h.le, h.phoff);
  try {
    for (let i = 0; i < h.phnum; i++) {
      const o = i * h.phentsize;
      const type = r.u32(o, "p_type");
      const flags = r.u32(o + (h.is64 ? 4 : 24), "p_flags");
      info.segments.push({
        type: SEGMENT_TYPES[type] ?? `0x${type.toString(16)}`,
        flags: `${flags & 4 ? "r" : "-"}${flags & 2 ? "w" : "-"}${flags & 1 ? "x" : "-"}`,
        offset: h.is64 ? r.u64(o + 8) : r.u32(o + 4),
        vaddr: h.is64 ? r.u64(o + 16) : r.u32(o + 8),
        fileSize: h.is64 ? r.u64(o + 32) : r.u32(o + 16),
        memSize: h.is64 ? r.u64(o + 40) : r.u32(o + 20),
      });
    }
  } catch (e) {
    if (!(e instanceof TruncatedError)) throw e;
    info.warnings.push(`program headers: ${e.message}`);
  }
}

async function readSections(
  src: ByteSource,
  info: ElfInfo,
  h: { is64: boolean; le: boolean; shoff: number; shentsize: number; shnum: number; shstrndx: number },
): Promise<void> {
  // Packed and stripped files often carry no section headers at all: segments are all there is.
  if (h.shnum === 0 || h.shoff === 0) return;
  if (h.shnum > MAX_HEADERS || h.shentsize < (h.is64 ? 64 : 40)) {
    info.warnings.push(`implausible section header table (${h.shnum} entries of ${h.shentsize} bytes)`);
    return;
  }
  const buf = await src.read(h.shoff, h.shnum * h.shentsize);
  const r = new FieldReader(buf, h.le, h.shoff);
  const raw: { nameOff: number; type: number; flags: number; addr: number; offset: number; size: number; link: number }[] = [];
  try {
    for (let i = 0; i < h.shnum; i++) {
      const o = i * h.shentsize;
      raw.push({
        nameOff: r.u32(o),
        type: r.u32(o + 4),
        flags: h.is64 ? r.u64(o + 8) : r.u32(o + 8),
        addr: h.is64 ? r.u64(o + 16) : r.u32(o + 12),
        offset: h.is64 ? r.u64(o + 24) : r.u32(o + 16),
        size: h.is64 ? r.u64(o + 32) : r.u32(o + 20),
        link: r.u32(o + (h.is64 ? 40 : 24)),
      });
    }
  } catch (e) {
    if (!(e instanceof TruncatedError)) throw e;
    info.warnings.push(`section headers: ${e.message}`);
    return;
  }
  const names = h.shstrndx < raw.length ? await readTable(src, raw[h.shstrndx], info, "section name table") : Buffer.alloc(0);
  for (const s of raw) {
    info.sections.push({
      name: cString(names, s.nameOff),
      type: s.type,
      flags: `${s.flags & 1 ? "w" : ""}${s.flags & 2 ? "a" : ""}${s.flags & 4 ? "x" : ""}`,
      addr: s.addr,
      offset: s.offset,
      size: s.size,
      noBits: s.type === SHT_NOBITS,
    });
  }
  const dynsym = raw.find((s) => s.type === SHT_SYMTAB_DYN);
  if (dynsym && dynsym.link < raw.length) {
    const strings = await readTable(src, raw[dynsym.link], info, "dynamic string table");
    const symbols = await readTable(src, dynsym, info, "dynamic symbol table");
    info.imports = undefinedSymbols(symbols, strings, h.is64, h.le);
  }
  const dynamic = raw.find((s) => s.type === SHT_DYNAMIC);
  if (dynamic && dynamic.link < raw.length) {
    const strings = await readTable(src, raw[dynamic.link], info, "dynamic string table");
    const table = await readTable(src, dynamic, info, "dynamic section");
    const entry = h.is64 ? 16 : 8;
    const dr = new FieldReader(table, h.le, dynamic.offset);
    for (let o = 0; o + entry <= table.length; o += entry) {
      const tag = h.is64 ? dr.u64(o) : dr.u32(o);
      if (tag === 0) break;
      if (tag === DT_NEEDED) info.needed.push(cString(strings, h.is64 ? dr.u64(o + 8) : dr.u32(o + 4)));
    }
  }
}

async function readTable(src: ByteSource, s: { offset: number; size: number; type: number }, info: ElfInfo, what: string): Promise<Buffer> {
  if (s.type === SHT_NOBITS) return Buffer.alloc(0);
  if (s.size > MAX_TABLE_BYTES || s.offset + s.size > src.size) {
    info.warnings.push(`${what} (${s.size} bytes at 0x${s.offset.toString(16)}) lies outside the file or is implausibly large; not read`);
    return Buffer.alloc(0);
  }
  return src.read(s.offset, s.size);
}

function undefinedSymbols(symbols: Buffer, strings: Buffer, is64: boolean, le: boolean): string[] {
  const size = is64 ? 24 : 16;
  const r = new FieldReader(symbols, le);
  const out: string[] = [];
  for (let o = size; o + size <= symbols.length; o += size) {
    const name = r.u32(o);
    const shndx = r.u16(o + (is64 ? 6 : 14));
    const bind = r.u8(o + (is64 ? 4 : 12)) >> 4;
    // SHN_UNDEF with global (1) or weak (2) binding: resolved from another object at load time.
    if (shndx === 0 && name !== 0 && (bind === 1 || bind === 2)) out.push(cString(strings, name));
  }
  return out;
}
