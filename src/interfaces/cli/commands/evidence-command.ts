import type { Command } from "commander";
import { stateStoresFor } from "../state-stores";
import { VERSION } from "../../../platform/version";
import { verifyEvidenceBundle, writeEvidenceBundle } from "../../../usecases/evidence";
import { reportError, UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";
import { scanErrorLine } from "../failure-lines";
import { choiceOption, intOption, sha256Option } from "../option-parsers";
import { withProbeDirOption, type ProbeDirFlags } from "../probe-dir-option";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { serviceClients } from "../service-clients";

/** Exit code of `evidence verify` when a bundle was changed or is not anchored in its stack's audit trail. */
export const EXIT_TAMPERED = 5;

const DESCRIPTION =
  "write an evidence bundle from one check (SARIF, JSON and Markdown reports, the live facts with their read times and request ids, the exemptions in force, a sha-256 manifest anchored in the stack's audit trail); `evidence verify DIR` checks one (exit 0, 3 a mandatory violation, 1 error; verify: 0 intact, 5 tampered or unanchored, 1 error)";

export function registerEvidence(program: Command, io: CommandIO): void {
  const evidence = withProbeDirOption(withStackOptions(program.command("evidence")))
    .description(DESCRIPTION)
    .option("--out <dir>", "the bundle's directory (created; must be empty)")
    .option("--audit-dir <dir>", "directory of the per-stack audit trails (env STACKWARDEN_AUDIT_DIR; default .stackwarden/audit)")
    .option("--lock-dir <dir>", "directory of the per-stack locks (env STACKWARDEN_LOCK_DIR; default .stackwarden/locks)")
    .option("--concurrency <n>", "reads in flight", intOption(1, 256), 16)
    .action(async (flags: EvidenceFlags) => {
      if (!flags.out) {
        reportError(io, new UsageError("where to? give --out DIR (a new or empty directory), or `evidence verify DIR` to check a bundle"), {
          prefix: "stackwarden evidence",
        });
        return;
      }
      const { stack, name } = loadStackFromFlags(flags, io);
      const clients = await serviceClients(io);
      let written;
      try {
        written = await writeEvidenceBundle({
          stack,
          stackName: name,
          clients,
          cwd: io.cwd,
          state: await stateStoresFor(io, flags),
          outDir: flags.out,
          toolVersion: VERSION,
          concurrency: flags.concurrency,
          warn: (l) => io.err(`stackwarden evidence: ${l}`),
        });
      } finally {
        await clients.close();
      }
      const s = written.check.summary;
      io.out(
        `Evidence bundle of stack ${name} in ${flags.out}: ${written.manifest.files.length + 1} files; ${s.mandatoryViolations} mandatory violation(s), ${s.advisoryViolations} advisory, ${s.exempt} exempt, ${s.passed} passed`,
      );
      io.out(`  manifest sha256 ${written.manifestSha256}`);
      io.out(`  anchored in ${written.trailPath} (seq ${written.anchor.seq}, sha256 ${written.anchor.hash})`);
      for (const e of written.check.scanErrors) io.err(scanErrorLine("stackwarden evidence", e));
      io.exitCode = written.exitCode;
    });

  evidence
    .command("verify")
    .description(
      "recompute every hash of an evidence bundle and find its anchor in the stack's audit trail (exit 0 intact, 5 tampered or unanchored, 1 error)",
    )
    .argument("<dir>", "the bundle's directory")
    .option("--audit-dir <dir>", "directory of the per-stack audit trails (env STACKWARDEN_AUDIT_DIR; default .stackwarden/audit)")
    .option("--state-url <url>", "where the stack's audit trail lives when it is shared (env STACKWARDEN_STATE_URL)")
    .option("--trail <file>", "the audit trail file to find the anchor in, instead of <audit-dir>/<stack>.jsonl")
    .option(
      "--expect-head <sha256>",
      "a head of the trail published elsewhere (audit verify prints it): fail (exit 5) unless the trail still carries it, so a rewritten trail with a forged anchor is caught",
      sha256Option,
    )
    .option("--output <format>", "table or json", choiceOption(["table", "json"] as const), "table")
    .action(
      async (
        dir: string,
        flags: { auditDir?: string; stateUrl?: string; trail?: string; expectHead?: string; output: "table" | "json" },
      ) => {
        const v = await verifyEvidenceBundle({
          dir,
          cwd: io.cwd,
          state: await stateStoresFor(io, flags),
          trailFile: flags.trail,
          expectHead: flags.expectHead,
        });
        if (flags.output === "json") io.out(JSON.stringify({ dir, ...v }, null, 2));
        else if (v.intact) {
          const at = v.anchor!.found!;
          io.out(
            `${dir}: intact; manifest sha256 ${v.manifestSha256} anchored in ${v.trailPath} (line ${at.line}, seq ${at.seq}, ${at.at})`,
          );
        } else {
          const count = v.problems.length + (v.anchor?.problems.length ?? 0);
          io.out(`${dir}: TAMPERED (${count} problem(s))`);
          for (const p of v.problems) io.out(`  ${p.kind}: ${p.message}`);
          for (const p of v.anchor?.problems ?? []) io.out(`  anchor: ${p}`);
        }
        io.exitCode = v.intact ? 0 : EXIT_TAMPERED;
      },
    );
}

interface EvidenceFlags extends StackFlags, ProbeDirFlags {
  out?: string;
  auditDir?: string;
  lockDir?: string;
  concurrency: number;
}
