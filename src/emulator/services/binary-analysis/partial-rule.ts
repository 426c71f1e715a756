import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { ExecutableInfo } from "../../../platform/executables/executable-format";
import type { PartialYaraRule } from "../../../services/binary-analysis/types";
import { extractStrings, type FoundString } from "./string-extraction";

/** Strings a partial rule carries at most. */
export const MAX_RULE_STRINGS = 20;
/** Shortest string considered when the request does not say. */
export const DEFAULT_MINIMUM_STRING_LENGTH = 6;

/** What every PE file carries: the DOS stub, standard section names, the Rich header, the system DLLs. */
const PE_BOILERPLATE = [
  /^!?This program cannot be run in DOS mode\.?/,
  /^This program must be run under Win32/,
  /^\.(text|rdata|data|bss|idata|edata|pdata|rsrc|reloc|tls|CRT|gfids|00cfg|didat|xdata|textbss)\b/,
  /^Rich$/,
  /^(KERNEL32|USER32|ADVAPI32|GDI32|SHELL32|ole32|OLEAUT32|msvcrt|ntdll|WS2_32|VCRUNTIME\d+|api-ms-win-[\w-]+)\.dll$/i,
];

/** What every ELF file built by the usual toolchain carries: section names, loader and libc names, crt symbols. */
const ELF_BOILERPLATE = [
  /^\.(interp|note[\w.]*|gnu[\w.]*|dynsym|dynstr|rela?[\w.]*|init\w*|fini\w*|plt[\w.]*|text|rodata|eh_frame\w*|dynamic|got[\w.]*|data[\w.]*|bss|comment|symtab|strtab|shstrtab|debug\w*|tbss|tdata)$/,
  /^GLIBC_[\d.]+$/,
  /^GCC: \(/,
  /^(\/lib(64)?\/)?ld-linux[\w.-]*\.so\.\d$/,
  /^lib(c|m|pthread|dl|rt|gcc_s|stdc\+\+)\.so(\.\d+)*$/,
  /^(__libc_start_main|__cxa_finalize|__gmon_start__|_ITM_(de)?registerTMCloneTable|__stack_chk_fail|__libc_csu_\w+)$/,
  /^(crtstuff\.c|deregister_tm_clones|register_tm_clones|__do_global_dtors_aux(_fini_array_entry)?|completed\.\d+|frame_dummy|__frame_dummy_init_array_entry)$/,
  // Versioned symbol names of a binary that keeps its symbol table, and the crt objects it was linked with.
  /@@?GLIBC(XX)?_[\d.]+$/,
  /^(S|g|M)?crt[1in]\.o$|^crt(begin|end)\w*\.o$/,
  /^(__abi_tag|_IO_stdin_used|__GNU_EH_FRAME_HDR|_ITM_\w+)$/,
  /^(__FRAME_END__|_DYNAMIC|__GNU_EH_FRAME_HDR|_GLOBAL_OFFSET_TABLE_|__TMC_END__|__dso_handle|_IO_stdin_used|__data_start|data_start|__bss_start|_edata|_end|_init|_fini|_start|main)$/,
];

/** What every UPX-packed file carries (when rules are generated without unpacking). */
const UPX_BOILERPLATE = [/\$Info: This file is packed with the UPX/, /\$Id: UPX \d/, /^UPX!/, /PROT_EXEC\|PROT_WRITE failed/, /^UPX[0-9]$/];

/** Marks of strings that tell a file apart (addresses, paths, registry keys, identifiers with digits). */
const DISTINCTIVE = [
  /https?:\/\//i,
  /[A-Za-z]:\\|\\\\|\/[a-z]+\/[a-z]/i,
  /HKEY_|Software\\/i,
  /@[\w-]+\.\w+/,
  /\b\d{1,3}(\.\d{1,3}){3}\b/,
  /[A-Z]{2,}[-_][A-Z0-9]+/,
  /%[sdxu]/,
];

/** Options of one generation. */
export interface PartialRuleRequest {
  /** The file to read (the unpacked one when unpacking was asked for and done). */
  path: string;
  /** The uploaded file name, for the rule name. */
  filename: string;
  info: ExecutableInfo;
  minimumStringLength?: number;
  stringsToIgnore?: readonly string[];
  /** sha-256 of the file as uploaded, when the rule describes its unpacked form. */
  unpackedFromSha256?: string;
}

/**
 * Builds a partial YARA rule for a file: its hashes in `meta`, its most distinctive strings in
 * `strings`, and no condition. Strings every file of its format carries are left out (section
 * names, the DOS stub, toolchain symbols, UPX's own marks), as are the strings the request names.
 */
export async function generatePartialRule(req: PartialRuleRequest): Promise<PartialYaraRule> {
  const md5 = createHash("md5");
  const sha256 = createHash("sha256");
  const sha512 = createHash("sha512");
  const minLength = req.minimumStringLength ?? DEFAULT_MINIMUM_STRING_LENGTH;
  const found = await extractStrings(req.path, minLength, (chunk) => {
    md5.update(chunk);
    sha256.update(chunk);
    sha512.update(chunk);
  });
  const chosen = rankStrings(found, req.info, req.stringsToIgnore ?? []).slice(0, MAX_RULE_STRINGS);
  const meta: PartialYaraRule["meta"] = {
    date: new Date().toISOString(),
    md5sum: md5.digest("hex"),
    sha256sum: sha256.digest("hex"),
    sha512sum: sha512.digest("hex"),
  };
  if (req.unpackedFromSha256) meta.unpacked_from_sha256 = req.unpackedFromSha256;
  return {
    name: ruleName(req.filename),
    meta,
    strings: chosen.map((s, i) => [`${s.kind}_${i}`, s.text]),
  };
}

/** Orders strings from most to least distinctive, dropping boilerplate and ignored ones. */
export function rankStrings(found: readonly FoundString[], info: ExecutableInfo, ignore: readonly string[]): FoundString[] {
  const ignored = new Set(ignore);
  const boilerplate = [...UPX_BOILERPLATE, ...(info.format === "pe" ? PE_BOILERPLATE : info.format === "elf" ? ELF_BOILERPLATE : [])];
  const sectionNames = new Set(info.format === "unknown" ? [] : info.sections.map((s) => s.name.trim()));
  const imports = new Set(info.format === "elf" ? info.imports : info.format === "pe" ? info.imports.flatMap((d) => d.functions) : []);
  const scored: { s: FoundString; score: number }[] = [];
  for (const s of found) {
    const text = s.text.trim();
    if (ignored.has(s.text) || ignored.has(text) || sectionNames.has(text)) continue;
    if (boilerplate.some((re) => re.test(text))) continue;
    const score = distinctiveness(text, imports.has(text));
    if (score > 0) scored.push({ s, score });
  }
  scored.sort((a, b) => b.score - a.score || a.s.offset - b.s.offset);
  return scored.map((x) => x.s);
}

/** A score: longer, more varied, more word-like strings score higher; gibberish and repetition score zero. */
export function distinctiveness(text: string, isImport: boolean): number {
  const n = text.length;
  const unique = new Set(text).size;
  if (unique < 4 || unique / n < 0.2) return 0;
  let score = Math.min(n, 64) * Math.min(1, unique / 10);
  const alnum = (text.match(/[A-Za-z0-9]/g) ?? []).length / n;
  const wordy = (text.match(/[A-Za-z]{3,}/g) ?? []).reduce((t, w) => t + w.length, 0) / n;
  if (alnum < 0.5) score *= 0.4;
  // Printable runs in compressed or random data: few real words in them.
  if (wordy < 0.35) score *= 0.3;
  if (DISTINCTIVE.some((re) => re.test(text))) score *= 1.6;
  if (isImport) score *= 0.5;
  return score;
}

function ruleName(filename: string): string {
  const stem = basename(filename)
    .replace(/[^A-Za-z0-9_]/g, "_")
    .slice(0, 100);
  return `partial_${stem || "file"}`;
}
