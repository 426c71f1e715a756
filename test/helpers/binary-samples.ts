import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { upxPack } from "../../src/emulator/services/binary-analysis/upx";

/**
 * Test samples built at test time (no binary is committed): files with marker strings, a small
 * executable compiled with gcc (or a copy of /bin/true when there is no gcc), and a UPX-packed
 * copy made with the bundled UPX. The markers are harmless made-up strings.
 */

/** The marker compiled into the sample executable. */
export const EXE_MARKER = "STACKWARDEN-SAMPLE-MARKER-7d1f";
/** A UTF-16LE marker compiled into the sample executable (as a wchar_t string). */
export const EXE_WIDE_MARKER = "StackwardenWideMarker";

export interface ExecutableSample {
  dir: string;
  /** The executable. */
  exe: string;
  /** Its UPX-packed copy. */
  packed: string;
  /** A string in the executable that the packed copy does not show. */
  marker: string;
  /** Whether it was compiled here (false: a copy of /bin/true with one of its own strings as the marker). */
  compiled: boolean;
}

/** A fresh temporary directory. */
export function tempDir(prefix = "stackwarden-ba-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

function hasGcc(): boolean {
  try {
    execFileSync("gcc", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const SOURCE = `
#include <stdio.h>
#include <wchar.h>
static const char marker[] = "${EXE_MARKER}";
static const wchar_t wide[] = L"${EXE_WIDE_MARKER}";
/* Compressible padding, so that UPX has something to pack. */
static const char padding[49152] = "stackwarden sample padding";
int main(int argc, char **argv) {
  if (argc > 7) { puts(padding); fputws(wide, stdout); }
  puts(marker);
  return 0;
}
`;

/** Builds the sample executable and its UPX-packed copy in a new directory. */
export async function buildExecutableSample(): Promise<ExecutableSample> {
  const dir = tempDir();
  const exe = join(dir, "sample");
  let marker = EXE_MARKER;
  let compiled = false;
  if (hasGcc()) {
    writeFileSync(join(dir, "sample.c"), SOURCE);
    execFileSync("gcc", ["-O0", "-fshort-wchar", "-o", exe, join(dir, "sample.c")], { stdio: "pipe" });
    compiled = true;
  } else {
    copyFileSync("/bin/true", exe);
  }
  const packed = join(dir, "sample.upx");
  const r = await upxPack(exe, packed);
  if (!r.ok) throw new Error(`UPX could not pack the sample: ${r.message}`);
  if (!compiled) marker = longestStringMissingFrom(readFileSync(exe), readFileSync(packed));
  return { dir, exe, packed, marker, compiled };
}

/** The longest printable ASCII run (16+ chars) of `a` that does not occur in `b`. */
function longestStringMissingFrom(a: Buffer, b: Buffer): string {
  const runs = a.toString("latin1").match(/[\x20-\x7e]{16,}/g) ?? [];
  const text = b.toString("latin1");
  const best = runs.filter((r) => !text.includes(r)).sort((x, y) => y.length - x.length)[0];
  if (!best) throw new Error("no string of the sample executable is hidden by packing");
  return best;
}

/** Writes a file made of the given parts (strings as latin1) and returns its path. */
export function writeSample(dir: string, name: string, parts: (string | Buffer)[]): string {
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : p))));
  return path;
}

/** A YARA rule that matches one text string. */
export function markerRule(name: string, text: string, extra = ""): string {
  return `rule ${name} : sample ${extra} {\n  meta:\n    description = "benign test marker"\n  strings:\n    $m = "${text}"\n  condition:\n    $m\n}\n`;
}
