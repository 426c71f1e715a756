import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { verifyTrailText } from "../../audit/audit-chain";
import { auditPathOf } from "../../audit/audit-trail";
import { stateDirs } from "../../settings/state-dirs";
import { UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";
import { choiceOption } from "../option-parsers";

/** Exit code of `audit verify` when the trail was tampered with. */
export const EXIT_TAMPERED = 5;

export function registerAudit(program: Command, io: CommandIO): void {
  const audit = program.command("audit").description("the per-stack audit trail of applies");
  audit
    .command("verify")
    .description("check a stack's audit trail for edited, removed or reordered entries (exit 0 intact, 5 tampered, 1 error)")
    .option("--stack <name>", "the stack whose trail to check (<audit-dir>/<stack>.jsonl)")
    .option("--file <path>", "check this trail file instead")
    .option("--audit-dir <dir>", "directory of the audit trails (env STACKWARDEN_AUDIT_DIR; default .stackwarden/audit)")
    .option("--output <format>", "table or json", choiceOption(["table", "json"] as const), "table")
    .action((flags: { stack?: string; file?: string; auditDir?: string; output: "table" | "json" }) => {
      if (!flags.stack === !flags.file) throw new UsageError("which trail? give --stack NAME or --file PATH");
      const path = flags.file ?? auditPathOf(stateDirs(io.cwd, io.env, flags).audit, flags.stack!);
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        throw new UsageError(
          code === "ENOENT"
            ? `no audit trail at ${path}: nothing was applied to this stack from here yet, or --audit-dir points elsewhere`
            : `cannot read ${path}: ${(e as Error).message}`,
        );
      }
      const v = verifyTrailText(text);
      if (flags.output === "json") {
        io.out(JSON.stringify({ file: path, ...v }, null, 2));
      } else if (v.intact) {
        io.out(
          `${path}: intact, ${v.entries} entr${v.entries === 1 ? "y" : "ies"}${v.head ? `; head seq ${v.head.seq} sha256 ${v.head.hash}` : ""}`,
        );
      } else {
        io.out(`${path}: TAMPERED (${v.problems.length} problem(s))`);
        for (const p of v.problems) io.out(`  line ${p.line}: ${p.kind}: ${p.message}`);
      }
      io.exitCode = v.intact ? 0 : EXIT_TAMPERED;
    });
}
