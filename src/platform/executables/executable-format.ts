import type { ByteSource } from "./byte-source";
import { isElf, parseElf, type ElfInfo } from "./elf-file";
import { isMz, parsePe, type PeInfo } from "./pe-file";

/** What a file is, as far as its headers tell. */
export type ExecutableInfo = ElfInfo | PeInfo | { format: "unknown"; reason: string };

/** Reads the headers of a PE or ELF file; anything else (or a broken header) is `unknown` with the reason. */
export async function readExecutable(src: ByteSource): Promise<ExecutableInfo> {
  const head = await src.read(0, 4);
  try {
    if (isElf(head)) return await parseElf(src);
    if (isMz(head)) return await parsePe(src);
  } catch (e) {
    return { format: "unknown", reason: (e as Error).message };
  }
  return { format: "unknown", reason: "neither a PE nor an ELF file" };
}

/** A file region worth describing: a section, or a segment when a file has no section headers. */
export interface Region {
  name: string;
  offset: number;
  size: number;
  /** Memory address (ELF) or RVA (PE). */
  address: number;
  flags: string;
}

/** The regions of an executable, in file order: its sections, or its loadable segments when it has none (packed ELF). */
export function regionsOf(info: ExecutableInfo): Region[] {
  if (info.format === "pe") {
    return info.sections.map((s) => ({ name: s.name, offset: s.rawOffset, size: s.rawSize, address: s.virtualAddress, flags: s.flags }));
  }
  if (info.format === "elf") {
    const sections = info.sections.filter((s) => s.name !== "" || s.size > 0);
    if (sections.length > 0)
      return sections.map((s) => ({
        name: s.name || "(unnamed)",
        offset: s.offset,
        size: s.noBits ? 0 : s.size,
        address: s.addr,
        flags: s.flags,
      }));
    return info.segments
      .filter((s) => s.type === "LOAD")
      .map((s, i) => ({ name: `LOAD[${i}]`, offset: s.offset, size: s.fileSize, address: s.vaddr, flags: s.flags }));
  }
  return [];
}

/** The region holding the entry point, if any. */
export function entryRegion(info: ExecutableInfo): Region | undefined {
  if (info.format === "unknown") return undefined;
  const entry = info.format === "pe" ? info.entryRva : info.entry;
  return regionsOf(info).find((r) => entry >= r.address && entry < r.address + Math.max(r.size, 1) && r.address !== 0);
}
