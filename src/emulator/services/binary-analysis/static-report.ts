import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { withFileSource } from "../../../platform/executables/byte-source";
import { rangeEntropy } from "../../../platform/executables/entropy";
import { entryRegion, readExecutable, regionsOf, type ExecutableInfo } from "../../../platform/executables/executable-format";
import type { DetectedPacker } from "../../../platform/executables/packer-detection";

/** The first line of every report: what this is, and what it is not. */
export const STATIC_NOTICE =
  "static report, not an emulation: stackwarden's local binary analysis service reads the file's headers and bytes; it does not run or emulate the file";

const MAX_SECTIONS = 64;
const MAX_IMPORTS = 200;

/** What the service did about unpacking, for the report. */
export type UnpackOutcome =
  | { kind: "not-packed" }
  | { kind: "unsupported"; packer: DetectedPacker }
  | { kind: "failed"; packer: DetectedPacker; message: string }
  | { kind: "unpacked"; packer: DetectedPacker; path: string; size: number };

/**
 * The `/emulation-output` answer of the local service: one line an item, in the shape of the
 * spec (`output: string[]`). It reports the format, entry point, sections with their entropy,
 * imports, the packer detected and whether unpacking worked, and the same for the unpacked file.
 */
export async function staticReport(opts: {
  path: string;
  filename: string;
  info: ExecutableInfo;
  packer?: DetectedPacker;
  unpack: UnpackOutcome;
}): Promise<string[]> {
  const { size, sha256 } = await digest(opts.path);
  const lines = [STATIC_NOTICE, `file: ${opts.filename}, ${size} bytes, sha256 ${sha256}`];
  lines.push(...(await describe(opts.path, opts.info, "")));
  const p = opts.packer;
  lines.push(p ? `packer: ${p.name}${p.version ? ` ${p.version}` : ""} (${p.evidence.join("; ")})` : "packer: none detected");
  const u = opts.unpack;
  switch (u.kind) {
    case "not-packed":
      lines.push("unpacking: not needed (no packer detected)");
      break;
    case "unsupported":
      lines.push(`unpacking: not possible here: ${u.packer.name} is not UPX, the only packer this service can undo`);
      break;
    case "failed":
      lines.push(`unpacking: failed: ${u.message}`);
      break;
    case "unpacked": {
      lines.push(`unpacking: worked (UPX): ${size} -> ${u.size} bytes`);
      const info = await withFileSource(u.path, readExecutable);
      lines.push(...(await describe(u.path, info, "unpacked ")));
      break;
    }
  }
  return lines;
}

async function describe(path: string, info: ExecutableInfo, prefix: string): Promise<string[]> {
  if (info.format === "unknown") return [`${prefix}format: unknown (${info.reason})`];
  const lines: string[] = [];
  if (info.format === "elf") {
    lines.push(`${prefix}format: ELF ${info.bits}-bit ${info.endian}-endian ${info.machine}, type ${info.type}`);
    const region = entryRegion(info);
    lines.push(`${prefix}entry point: 0x${info.entry.toString(16)}${region ? ` (in ${region.name})` : ""}`);
  } else {
    lines.push(`${prefix}format: ${info.kind} ${info.machine} ${info.dll ? "DLL" : "executable"}, subsystem ${info.subsystem}`);
    const region = entryRegion(info);
    lines.push(
      `${prefix}entry point: RVA 0x${info.entryRva.toString(16)}${region ? ` (in ${region.name})` : ""}, image base 0x${info.imageBase.toString(16)}`,
    );
  }
  const regions = regionsOf(info);
  const kind = info.format === "elf" && info.sections.length === 0 ? "segments" : "sections";
  lines.push(`${prefix}${kind}: ${regions.length}${regions.length > MAX_SECTIONS ? ` (first ${MAX_SECTIONS} shown)` : ""}`);
  await withFileSource(path, async (src) => {
    for (const r of regions.slice(0, MAX_SECTIONS)) {
      const entropy = r.size > 0 ? (await rangeEntropy(src, r.offset, r.size)).toFixed(2) : "-";
      lines.push(
        `${prefix}${kind.slice(0, -1)} ${r.name}: offset 0x${r.offset.toString(16)}, size ${r.size}, address 0x${r.address.toString(16)}, flags ${r.flags || "-"}, entropy ${entropy}`,
      );
    }
  });
  if (info.format === "elf") {
    if (info.needed.length) lines.push(`${prefix}needed libraries: ${info.needed.join(", ")}`);
    lines.push(`${prefix}imports: ${list(info.imports)}`);
  } else {
    if (info.imports.length === 0) lines.push(`${prefix}imports: none`);
    for (const d of info.imports) lines.push(`${prefix}imports from ${d.dll}: ${list(d.functions)}`);
  }
  for (const w of info.warnings) lines.push(`${prefix}warning: ${w}`);
  return lines;
}

function list(names: readonly string[]): string {
  if (names.length === 0) return "none";
  return names.slice(0, MAX_IMPORTS).join(", ") + (names.length > MAX_IMPORTS ? `, ... (${names.length - MAX_IMPORTS} more)` : "");
}

async function digest(path: string): Promise<{ size: number; sha256: string }> {
  const h = createHash("sha256");
  let size = 0;
  for await (const c of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    h.update(c);
    size += c.length;
  }
  return { size, sha256: h.digest("hex") };
}
