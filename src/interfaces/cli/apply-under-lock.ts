import { dirname, resolve } from "node:path";
import type { StackConfig } from "../../domain/stack/stack-config";
import { headCommit } from "../../platform/programs/git-checkout";
import { describeHolder } from "../../domain/reconcile/stack-lock";
import { actorSourcesFromEnv } from "../../domain/audit/actor-from-env";
import { runLockedApply, type AppliedResult } from "../../domain/reconcile/locked-apply";
import { azureClientsFromEnv } from "../../clients/azure-clients";
import { stateDirs } from "../../platform/settings/state-dirs";
import { formatDuration } from "../../platform/duration";
import type { CommandIO } from "./command-io";
import type { OperationFlags } from "./operation-options";

/**
 * Runs a CLI apply under the stack's lock and appends its audit entry (see runLockedApply);
 * resolves to the apply's exit code. A held lock fails at once naming the holder, unless
 * `--lock-timeout` says to wait.
 */
export async function applyUnderLock(
  command: string,
  stack: StackConfig,
  stackName: string,
  flags: Partial<OperationFlags>,
  io: CommandIO,
  body: () => Promise<AppliedResult>,
): Promise<number> {
  const dirs = stateDirs(io.cwd, io.env, flags);
  const { result, entry } = await runLockedApply(
    {
      dirs,
      stack: stackName,
      command,
      lockTimeoutMs: flags.lockTimeout ?? 0,
      commit: await headCommit(dirname(resolve(io.cwd, stack.file))),
      actor: actorSourcesFromEnv(io.env, azureClientsFromEnv(io.env).credential),
      onLockWait: (holder) =>
        io.err(
          `stackwarden ${command}: stack ${stackName} is locked by ${describeHolder(holder)}; waiting up to ${formatDuration(flags.lockTimeout ?? 0)}`,
        ),
    },
    async (lock) => {
      if (lock.recovered)
        io.err(`stackwarden ${command}: recovered the lock left by ${describeHolder(lock.recovered)}: that process no longer runs`);
      // Another process took the lock over (it was not refreshed in time): say so; the entry is still written.
      lock.lost.addEventListener("abort", () => io.err(`stackwarden ${command}: warning: ${(lock.lost.reason as Error).message}`), {
        once: true,
      });
      return body();
    },
  );
  // Only when something changed: an apply that did nothing keeps its output as it was.
  if (entry.what.length > 0) io.err(`stackwarden ${command}: audit entry ${entry.seq} written to ${relativeTo(io.cwd, dirs.audit)}`);
  if (result.summary?.stream === "out") io.out(result.summary.line);
  else if (result.summary) io.err(result.summary.line);
  return result.exitCode;
}

function relativeTo(cwd: string, p: string): string {
  return p.startsWith(`${cwd}/`) ? p.slice(cwd.length + 1) : p;
}
