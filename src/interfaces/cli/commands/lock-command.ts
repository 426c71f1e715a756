import type { Command } from "commander";
import { clientSetFromEnv } from "../../../clients/client-set";
import { describeHolder } from "../../../domain/reconcile/stack-lock";
import { breakLock, lockStatus } from "../../../usecases/lock";
import { UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";
import { choiceOption } from "../option-parsers";
import { stateStoresFor, withStateUrlOption, type StateFlags } from "../state-stores";

type LockFlags = StateFlags & { stack?: string; output: "table" | "json"; yes?: boolean };

/** Where the lock (and, to break it, the audit trail) live: `--state-url`, or the local directories. */
function withLockPlace(cmd: Command): Command {
  return withStateUrlOption(cmd)
    .option("--lock-dir <dir>", "directory of the per-stack locks (env STACKWARDEN_LOCK_DIR; default .stackwarden/locks)")
    .option("--audit-dir <dir>", "directory of the per-stack audit trails (env STACKWARDEN_AUDIT_DIR; default .stackwarden/audit)");
}

/** `stackwarden lock status|break --stack S`: who holds a stack's lock, and breaking it. */
export function registerLock(program: Command, io: CommandIO): void {
  const lock = program.command("lock").description("the per-stack lock that every apply takes (status, break)");
  withLockPlace(lock.command("status"))
    .description("show who holds a stack's lock (pid, host, command, since) and where it lives (exit 0, 1 error)")
    .requiredOption("--stack <name>", "the stack")
    .option("--output <format>", "table or json", choiceOption(["table", "json"] as const), "table")
    .action(async (flags: LockFlags) => {
      const s = await lockStatus({ state: await stateStoresFor(io, flags), stack: flags.stack! });
      if (flags.output === "json") io.out(JSON.stringify({ stack: s.stack, where: s.where, holder: s.holder ?? null }, null, 2));
      else
        io.out(
          s.holder
            ? `stack ${s.stack} is locked by ${describeHolder(s.holder)} (${s.where})`
            : `stack ${s.stack} is not locked (${s.where})`,
        );
    });
  withLockPlace(lock.command("break"))
    .description(
      "break a stack's lock whoever holds it, and record in the stack's audit trail who broke whose lock; the holder stops at its next write (exit 0, 1 error or no --yes)",
    )
    .requiredOption("--stack <name>", "the stack")
    .option("--yes", "break it without asking (required: a broken lock lets a second apply start beside the first)")
    .option("--output <format>", "table or json", choiceOption(["table", "json"] as const), "table")
    .action(async (flags: LockFlags) => {
      if (!flags.yes)
        throw new UsageError(
          `refusing to break the lock of stack ${flags.stack} without --yes: breaking it lets another apply start while the holder may still run; see who holds it with \`stackwarden lock status --stack ${flags.stack}\``,
        );
      const b = await breakLock({ state: await stateStoresFor(io, flags), stack: flags.stack!, clients: clientSetFromEnv(io.env) });
      if (flags.output === "json")
        io.out(JSON.stringify({ stack: b.stack, where: b.where, broke: b.holder ?? null, auditSeq: b.entry?.seq ?? null }, null, 2));
      else
        io.out(
          b.holder
            ? `broke the lock of stack ${b.stack} held by ${describeHolder(b.holder)}; audit entry ${b.entry!.seq}`
            : `stack ${b.stack} was not locked: nothing to break (${b.where})`,
        );
    });
}
