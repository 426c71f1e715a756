import { type ByteSource, FieldReader, TruncatedError, cString } from "./byte-source";

/** One PE section header. */
export interface PeSection {
  name: string;
  virtualAddress: number;
  virtualSize: number;
  rawOffset: number;
  rawSize: number;
  /** `r`, `w`, `x` or `-` for each, from the section characteristics. */
  flags: string;
}

/** The functions a PE file imports from one DLL. */
export interface PeImport {
  dll: string;
  /** Function names, or `#N` for imports by ordinal. */
  functions: string[];
}

/** What the headers of a PE (Windows) file say. */
export interface PeInfo {
  format: "pe";
  /** `PE32` or `PE32+`. */
  kind: "PE32" | "PE32+";
  machine: string;
  /** `console`, `GUI`, `native`, `EFI application` or the number. */
  subsystem: string;
  dll: boolean;
  /** COFF time stamp (seconds since 1970), as linkers write it (often not a real date). */
  timestamp: number;
  imageBase: number;
  /** Entry point RVA. */
  entryRva: number;
  sections: PeSection[];
  imports: PeImport[];
  /** File offset just past the section table. */
  headersEnd: number;
  /** Problems met while reading tables (truncated or implausible); the rest is still reported. */
  warnings: string[];
}

const MACHINES: Record<number, string> = { 0x14c: "x86", 0x8664: "x86-64", 0x1c0: "ARM", 0x1c4: "ARM Thumb-2", 0xaa64: "ARM64" };
const SUBSYSTEMS: Record<number, string> = { 1: "native", 2: "GUI", 3: "console", 9: "Windows CE", 10: "EFI application" };
const MAX_SECTIONS = 96;
const MAX_DLLS = 1024;
const MAX_FUNCTIONS = 10_000;

/** Whether the bytes start with the DOS `MZ` magic (a PE file has it; check `parsePe` for the rest). */
export function isMz(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x4d && head[1] === 0x5a;
}

/** Reads a PE file's headers, section table and import table. Throws when there is no PE header. */
export async function parsePe(src: ByteSource): Promise<PeInfo> {
  const dos = await src.read(0, 64);
  if (!isMz(dos)) throw new Error("not a PE file (no MZ magic)");
  const lfanew = new FieldReader(dos, true).u32(0x3c, "e_lfanew");
  if (lfanew > 0x10000000) throw new Error(`not a PE file (e_lfanew 0x${lfanew.toString(16)} is implausible)`);
  const nt = await src.read(lfanew, 24 + 240);
  const r = new FieldReader(nt, true, lfanew);
  if (r.u32(0, "PE signature") !== 0x00004550) throw new Error(`not a PE file (no "PE\\0\\0" signature at 0x${lfanew.toString(16)})`);
  const machine = r.u16(4);
  const sectionCount = r.u16(6);
  const timestamp = r.u32(8);
  const optSize = r.u16(20);
  const characteristics = r.u16(22);
  const magic = r.u16(24, "optional header magic");
  if (magic !== 0x10b && magic !== 0x20b) throw new Error(`unknown PE optional header magic 0x${magic.toString(16)}`);
  const plus = magic === 0x20b;
  const opt = 24;
  const info: PeInfo = {
    format: "pe",
    kind: plus ? "PE32+" : "PE32",
    machine: MACHINES[machine] ?? `machine 0x${machine.toString(16)}`,
    subsystem: SUBSYSTEMS[r.u16(opt + 68)] ?? `subsystem ${r.u16(opt + 68)}`,
    dll: (characteristics & 0x2000) !== 0,
    timestamp,
    imageBase: plus ? r.u64(opt + 24) : r.u32(opt + 28),
    entryRva: r.u32(opt + 16),
    sections: [],
    imports: [],
    headersEnd: 0,
    warnings: [],
  };
  const dirCount = r.u32(opt + (plus ? 108 : 92));
  const dirBase = opt + (plus ? 112 : 96);
  const importDir = dirCount > 1 && dirBase + 16 <= 24 + optSize ? { rva: r.u32(dirBase + 8), size: r.u32(dirBase + 12) } : undefined;

  const tableAt = lfanew + 24 + optSize;
  const count = Math.min(sectionCount, MAX_SECTIONS);
  if (sectionCount > MAX_SECTIONS) info.warnings.push(`${sectionCount} sections declared; only the first ${MAX_SECTIONS} are read`);
  const table = await src.read(tableAt, count * 40);
  const t = new FieldReader(table, true, tableAt);
  try {
    for (let i = 0; i < count; i++) {
      const o = i * 40;
      const ch = t.u32(o + 36, "section characteristics");
      info.sections.push({
        name: cString(table.subarray(o, o + 8), 0, 8),
        virtualSize: t.u32(o + 8),
        virtualAddress: t.u32(o + 12),
        rawSize: t.u32(o + 16),
        rawOffset: t.u32(o + 20),
        flags: `${ch & 0x40000000 ? "r" : "-"}${ch & 0x80000000 ? "w" : "-"}${ch & 0x20000000 ? "x" : "-"}`,
      });
    }
  } catch (e) {
    if (!(e instanceof TruncatedError)) throw e;
    info.warnings.push(`section table: ${e.message}`);
  }
  info.headersEnd = tableAt + info.sections.length * 40;
  if (importDir && importDir.rva !== 0) await readImports(src, info, importDir.rva, plus);
  return info;
}

/** The file offset of an RVA, or undefined when no section (or the headers) holds it. */
export function rvaToOffset(info: Pick<PeInfo, "sections" | "headersEnd">, rva: number): number | undefined {
  for (const s of info.sections) {
    const span = Math.max(s.virtualSize, s.rawSize);
    if (rva >= s.virtualAddress && rva < s.virtualAddress + span) {
      const delta = rva - s.virtualAddress;
      return delta < s.rawSize ? s.rawOffset + delta : undefined;
    }
  }
  return rva < info.headersEnd ? rva : undefined;
}

async function readImports(src: ByteSource, info: PeInfo, rva: number, plus: boolean): Promise<void> {
  const at = rvaToOffset(info, rva);
  if (at === undefined) {
    info.warnings.push(`import directory RVA 0x${rva.toString(16)} is in no section`);
    return;
  }
  const stringAt = async (r: number, max = 256): Promise<string | undefined> => {
    const o = rvaToOffset(info, r);
    return o === undefined ? undefined : cString(await src.read(o, max), 0, max);
  };
  for (let i = 0; i < MAX_DLLS; i++) {
    const d = await src.read(at + i * 20, 20);
    if (d.length < 20) {
      info.warnings.push("import directory runs past the end of the file");
      return;
    }
    const r = new FieldReader(d, true, at + i * 20);
    const lookup = r.u32(0);
    const nameRva = r.u32(12);
    const thunks = r.u32(16);
    if (lookup === 0 && nameRva === 0 && thunks === 0) return;
    const dll = (await stringAt(nameRva)) ?? `(name at RVA 0x${nameRva.toString(16)} unreadable)`;
    info.imports.push({ dll, functions: await readThunks(src, info, lookup || thunks, plus, stringAt) });
  }
  info.warnings.push(`more than ${MAX_DLLS} import descriptors; the rest are not read`);
}

async function readThunks(
  src: ByteSource,
  info: PeInfo,
  rva: number,
  plus: boolean,
  stringAt: (rva: number) => Promise<string | undefined>,
): Promise<string[]> {
  const size = plus ? 8 : 4;
  const at = rvaToOffset(info, rva);
  if (at === undefined) return [];
  const out: string[] = [];
  const block = await src.read(at, MAX_FUNCTIONS * size);
  for (let o = 0; o + size <= block.length && out.length < MAX_FUNCTIONS; o += size) {
    const lo = block.readUInt32LE(o);
    const hi = plus ? block.readUInt32LE(o + 4) : 0;
    if (lo === 0 && hi === 0) break;
    const byOrdinal = plus ? (hi & 0x80000000) !== 0 : (lo & 0x80000000) !== 0;
    if (byOrdinal) out.push(`#${lo & 0xffff}`);
    else out.push((await stringAt((lo & 0x7fffffff) + 2)) ?? `(name at RVA 0x${lo.toString(16)} unreadable)`);
  }
  return out;
}
