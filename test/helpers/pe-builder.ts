/**
 * Builds a small, well-formed PE32+ file in memory for parser tests (no Windows toolchain here):
 * DOS header and stub, PE headers, a code section, a data section with an import directory, and
 * optional extra section names (e.g. UPX0/UPX1 to look packed). The code is a single `ret`.
 */
export interface PeSpec {
  sectionNames?: [string, string];
  imports?: { dll: string; functions: string[] }[];
  /** Text placed in the data section. */
  text?: string;
}

const FILE_ALIGN = 0x200;
const SECT_ALIGN = 0x1000;

export function buildPe(spec: PeSpec = {}): Buffer {
  const [codeName, dataName] = spec.sectionNames ?? [".text", ".rdata"];
  const imports = spec.imports ?? [{ dll: "KERNEL32.dll", functions: ["ExitProcess", "GetStdHandle"] }];
  const headers = Buffer.alloc(FILE_ALIGN);
  // DOS header + stub text (as every linker writes it).
  headers.write("MZ", 0, "latin1");
  headers.writeUInt32LE(0x80, 0x3c);
  headers.write("This program cannot be run in DOS mode.", 0x4e, "latin1");
  const pe = 0x80;
  headers.write("PE\0\0", pe, "latin1");
  headers.writeUInt16LE(0x8664, pe + 4); // machine AMD64
  headers.writeUInt16LE(2, pe + 6); // sections
  headers.writeUInt32LE(0x5f000000, pe + 8); // timestamp
  const optSize = 240;
  headers.writeUInt16LE(optSize, pe + 20);
  headers.writeUInt16LE(0x0022, pe + 22); // executable, large address aware
  const opt = pe + 24;
  headers.writeUInt16LE(0x20b, opt); // PE32+
  headers.writeUInt32LE(0x1000, opt + 16); // entry RVA (start of the code section)
  headers.writeBigUInt64LE(0x140000000n, opt + 24); // image base
  headers.writeUInt32LE(SECT_ALIGN, opt + 32);
  headers.writeUInt32LE(FILE_ALIGN, opt + 36);
  headers.writeUInt32LE(0x3000, opt + 56); // size of image
  headers.writeUInt32LE(FILE_ALIGN, opt + 60); // size of headers
  headers.writeUInt16LE(3, opt + 68); // console subsystem
  headers.writeUInt32LE(16, opt + 108); // data directories

  // Data section layout: import descriptors, lookup tables, hint/name entries, DLL names, text.
  const data = Buffer.alloc(FILE_ALIGN * 2);
  const dataRva = 0x2000;
  let cursor = (imports.length + 1) * 20;
  const descriptors: { lookup: number; name: number }[] = [];
  for (const imp of imports) {
    const lookup = cursor;
    cursor += (imp.functions.length + 1) * 8;
    descriptors.push({ lookup, name: 0 });
  }
  imports.forEach((imp, i) => {
    imp.functions.forEach((fn, j) => {
      const hintName = cursor;
      data.writeUInt16LE(j, hintName);
      data.write(`${fn}\0`, hintName + 2, "latin1");
      cursor += 2 + fn.length + 1 + ((fn.length + 1) % 2);
      data.writeBigUInt64LE(BigInt(dataRva + hintName), descriptors[i].lookup + j * 8);
    });
    descriptors[i].name = cursor;
    data.write(`${imp.dll}\0`, cursor, "latin1");
    cursor += imp.dll.length + 1;
  });
  descriptors.forEach((d, i) => {
    data.writeUInt32LE(dataRva + d.lookup, i * 20); // OriginalFirstThunk
    data.writeUInt32LE(dataRva + d.name, i * 20 + 12); // Name
    data.writeUInt32LE(dataRva + d.lookup, i * 20 + 16); // FirstThunk (same table: not bound)
  });
  if (spec.text) data.write(spec.text, cursor + 16, "latin1");
  headers.writeUInt32LE(dataRva, opt + 112 + 8); // import directory RVA
  headers.writeUInt32LE((imports.length + 1) * 20, opt + 112 + 12);

  const code = Buffer.alloc(FILE_ALIGN);
  code[0] = 0xc3; // ret

  const table = opt + optSize;
  const section = (i: number, name: string, rva: number, raw: number, rawSize: number, ch: number) => {
    const o = table + i * 40;
    headers.write(name.slice(0, 8), o, "latin1");
    headers.writeUInt32LE(rawSize, o + 8);
    headers.writeUInt32LE(rva, o + 12);
    headers.writeUInt32LE(rawSize, o + 16);
    headers.writeUInt32LE(raw, o + 20);
    headers.writeUInt32LE(ch, o + 36);
  };
  section(0, codeName, 0x1000, FILE_ALIGN, code.length, 0x60000020); // code, execute, read
  section(1, dataName, dataRva, FILE_ALIGN * 2, data.length, 0x40000040); // initialized data, read
  return Buffer.concat([headers, code, data]);
}
