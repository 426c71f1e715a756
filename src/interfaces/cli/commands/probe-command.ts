import type { Command } from "commander";
import { stateStoresFor } from "../state-stores";
import { probeDocument, renderProbeTable } from "../../../domain/probes/probe-report";
import { EXIT_PROBE_FAILED, prepareStackProbes, runStackProbes } from "../../../usecases/probe";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";
import { withProbeDirOption, type ProbeDirFlags } from "../probe-dir-option";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { serviceClients } from "../service-clients";

const FORMATS = ["table", "json"] as const;
type Format = (typeof FORMATS)[number];

export function registerProbe(program: Command, io: CommandIO): void {
  withProbeDirOption(withStackOptions(program.command("probe")))
    .description(
      "issue a document from each certificate issuer the stack's stackwarden:probes name, and check it (exit 0 all pass, 4 a probe failed, 1 error)",
    )
    .option("--output <format>", FORMATS.join(" or "), choiceOption(FORMATS), "table")
    .option("--concurrency <n>", "probes in flight", intOption(1, 64), 4)
    .addHelpText(
      "after",
      `
Environment: STACKWARDEN_APISETU_ENDPOINT (default https://apisetu.gov.in; the emulator's is <url>/apisetu),
STACKWARDEN_APISETU_API_KEY, STACKWARDEN_APISETU_CLIENT_ID, STACKWARDEN_PROVIDER_NAMES=described (X-GATEWAY-* headers),
and the variables the probes' parameters name (\${env:NAME}). Only outcome, latency, size and sha-256 are shown.
The results (the same, no parameter) replace the stack's last run in the probe directory, where check reads them.`,
    )
    .action(async (flags: StackFlags & ProbeDirFlags & { output: Format; concurrency: number }) => {
      const { stack, name } = loadStackFromFlags(flags, io);
      const prepared = prepareStackProbes(stack.probes, await serviceClients(io), io.env, flags.concurrency);
      const { run, keep } = await runStackProbes(prepared, { stackName: name, state: await stateStoresFor(io, flags), command: "probe" });
      io.out(flags.output === "json" ? JSON.stringify(probeDocument(name, stack.file, run), null, 2) : renderProbeTable(name, run));
      // Kept after they are shown: a directory that cannot be written fails the command (exit 1), not the report.
      await keep();
      io.exitCode = run.failed > 0 ? EXIT_PROBE_FAILED : 0;
    });
}
