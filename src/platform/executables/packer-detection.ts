import type { ByteSource } from "./byte-source";
import type { ExecutableInfo } from "./executable-format";

/** A packer recognised from its marks in the file. */
export interface DetectedPacker {
  /** `UPX`, `ASPack`, `MPRESS`, ... */
  name: string;
  /** The packer's version when the file says it (UPX writes `$Id: UPX 3.94 ...`). */
  version?: string;
  /** What gave it away, e.g. `section names UPX0, UPX1` or `"UPX!" header at 0xec`. */
  evidence: string[];
  /** Whether the bundled UPX can unpack it (only UPX's own format). */
  unpackable: boolean;
}

/** Section names that packers give their sections (a name is a fact, not a verdict: see `evidence`). */
const PACKER_SECTIONS: readonly [RegExp, string][] = [
  [/^UPX[0-9!]$/, "UPX"],
  [/^\.aspack$|^\.adata$/, "ASPack"],
  [/^\.?MPRESS[12]$/, "MPRESS"],
  [/^\.petite$/, "Petite"],
  [/^PEC2|^PECompact2$/, "PECompact"],
  [/^\.nsp[012]$/, "NsPack"],
  [/^\.themida$/, "Themida"],
  [/^\.vmp[0-9]$/, "VMProtect"],
  [/^\.enigma[12]$/, "Enigma Protector"],
  [/^pebundle$/i, "PEBundle"],
];

const UPX_MAGIC = Buffer.from("UPX!", "latin1");
const UPX_ID = /\$Id: UPX (\d+\.\d+[\w.]*)/;
const SCAN = 64 * 1024;

/**
 * Recognises a packed executable from its headers: section names (PE), UPX's `l_info` header
 * right after the program headers (ELF), and UPX's `$Id` and `UPX!` marks. Reads at most the
 * first and last 64 KiB of the file.
 */
export async function detectPacker(src: ByteSource, info: ExecutableInfo): Promise<DetectedPacker | undefined> {
  if (info.format === "unknown") return undefined;
  const head = await src.read(0, SCAN);
  const tail = src.size > SCAN ? await src.read(src.size - SCAN, SCAN) : Buffer.alloc(0);
  const version = UPX_ID.exec(head.toString("latin1"))?.[1] ?? UPX_ID.exec(tail.toString("latin1"))?.[1];

  if (info.format === "pe") {
    const byName = new Map<string, string[]>();
    for (const s of info.sections) {
      const hit = PACKER_SECTIONS.find(([re]) => re.test(s.name));
      if (hit) byName.set(hit[1], [...(byName.get(hit[1]) ?? []), s.name]);
    }
    const [name, sections] = [...byName.entries()][0] ?? [];
    if (name && sections) {
      const evidence = [`section names ${sections.join(", ")}`];
      const magic = head.indexOf(UPX_MAGIC);
      if (name === "UPX" && magic >= 0 && magic < info.headersEnd + 0x400) evidence.push(`"UPX!" header at 0x${magic.toString(16)}`);
      if (name === "UPX" && version) evidence.push(`$Id: UPX ${version}`);
      return { name, version: name === "UPX" ? version : undefined, evidence, unpackable: name === "UPX" };
    }
    return undefined;
  }

  // ELF: UPX puts its l_info (checksum, then "UPX!") right after the program header table.
  const at = info.programHeadersEnd + 4;
  if (at + 4 <= head.length && head.subarray(at, at + 4).equals(UPX_MAGIC)) {
    const evidence = [`"UPX!" header at 0x${at.toString(16)}, after the program headers`];
    if (version) evidence.push(`$Id: UPX ${version}`);
    return { name: "UPX", version, evidence, unpackable: true };
  }
  if (version && head.indexOf(UPX_MAGIC) >= 0 && info.sections.length === 0) {
    return { name: "UPX", version, evidence: [`$Id: UPX ${version} with a "UPX!" mark and no section headers`], unpackable: true };
  }
  return undefined;
}
