import type { Command } from "commander";
import type { TrailVerdict } from "../../../domain/audit/audit-chain";
import { verifyAuditTrail } from "../../../usecases/audit";
import { stateStoresFor } from "../state-stores";
import type { CommandIO } from "../command-io";
import { choiceOption, sha256Option } from "../option-parsers";

/** Exit code of `audit verify` when the trail was tampered with. */
export const EXIT_TAMPERED = 5;

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** One line on an expected head (`--expect-head`): where it is in the trail, or that it is not. */
function checkpointLine(v: TrailVerdict): string | undefined {
  const c = v.checkpoint;
  if (!c) return undefined;
  if (c.found) {
    return c.appendedSince === 0
      ? "the expected head is still the head"
      : `${plural(c.appendedSince!, "entry", "entries")} appended since the expected head (seq ${c.found.seq}, line ${c.found.line})`;
  }
  const now = v.head ? `; its head is seq ${v.head.seq} sha256 ${v.head.hash}` : "";
  return `the expected head ${c.hash} is not in the trail (${plural(v.entries, "entry", "entries")}${now}): entries were removed from the end, or the chain was rewritten from some line on`;
}

export function registerAudit(program: Command, io: CommandIO): void {
  const audit = program.command("audit").description("the per-stack audit trail of applies");
  audit
    .command("verify")
    .description(
      "check a stack's audit trail for edited, removed or reordered entries, and with --expect-head for entries cut from its end (exit 0 intact, 5 tampered, 1 error)",
    )
    .option("--stack <name>", "the stack whose trail to check (<audit-dir>/<stack>.jsonl)")
    .option("--file <path>", "check this trail file instead")
    .option("--audit-dir <dir>", "directory of the audit trails (env STACKWARDEN_AUDIT_DIR; default .stackwarden/audit)")
    .option(
      "--state-url <url>",
      "where the trails live when they are shared: https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX] or http://HOST:PORT/ACCOUNT/CONTAINER (env STACKWARDEN_STATE_URL)",
    )
    .option(
      "--expect-head <sha256>",
      "a head printed by an earlier verify (64 hex), kept elsewhere: fail (exit 5) unless an entry of the trail carries it, to catch entries cut from the end",
      sha256Option,
    )
    .option("--output <format>", "table or json", choiceOption(["table", "json"] as const), "table")
    .action(
      async (flags: {
        stack?: string;
        file?: string;
        auditDir?: string;
        stateUrl?: string;
        expectHead?: string;
        output: "table" | "json";
      }) => {
        const v = await verifyAuditTrail({ state: await stateStoresFor(io, flags), cwd: io.cwd, ...flags });
        const path = v.where;
        const checkpoint = checkpointLine(v);
        if (flags.output === "json") {
          const { where: _where, ...verdict } = v;
          io.out(JSON.stringify({ file: path, ...verdict }, null, 2));
        } else if (v.intact) {
          const head = v.head ? `; head seq ${v.head.seq} sha256 ${v.head.hash}` : "";
          io.out(`${path}: intact, ${plural(v.entries, "entry", "entries")}${head}${checkpoint ? `; ${checkpoint}` : ""}`);
        } else if (v.problems.length === 0) {
          // The chain holds but the checkpoint is not in it: cut short at its end, or rewritten.
          io.out(`${path}: TAMPERED: ${checkpoint}`);
        } else {
          io.out(`${path}: TAMPERED (${v.problems.length} problem(s))`);
          for (const p of v.problems) io.out(`  line ${p.line}: ${p.kind}: ${p.message}`);
          if (checkpoint) io.out(`  expected head: ${checkpoint}`);
        }
        io.exitCode = v.intact ? 0 : EXIT_TAMPERED;
      },
    );
}
