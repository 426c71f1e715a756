import type { Command } from "commander";
import { loadStackFile, stackFilePath } from "../../../domain/stack/stack-config";
import { startEmulator } from "../../../emulator/server";
import { loadSeedFile } from "../../../emulator/seed";
import { LOCAL_SERVICES } from "../../../emulator/services";
import { planTde } from "../../../domain/reconcile/tde-plan";
import { renderPlan } from "../../../domain/reports/plan-report";
import { azureClientsFromEnv } from "../../../clients/azure-clients";
import { geocodingClientFromEnv } from "../../../clients/geocoding-client";
import type { CommandIO } from "../command-io";
import { DEFAULT_ESTATE } from "./emulator-command";
import { runApply } from "./apply-command";
import { EXIT_MANDATORY_VIOLATION, lastProbeRunOf, needsArtifactScan, runCheck } from "./check-command";
import { BinaryAnalysisClient } from "../../../services/binary-analysis/client";
import { ARTIFACT_ID_PREFIX } from "../../../domain/compliance/artifact-verdict";
import { BINARY_ANALYSIS_PREFIX } from "../../../emulator/services/binary-analysis/binary-analysis-local";
import { renderComplianceTable } from "../../../domain/reports/compliance-report";
import { VERSION } from "../../../platform/version";
import { prepareProbes } from "../../../domain/probes/probe-runner";
import { withProbeDirOption, type ProbeDirFlags } from "../probe-dir-option";
import { runProbeStep } from "../probe-step";
import { EXIT_PROBE_FAILED } from "./probe-command";

/**
 * `npm start`: the main job against the embedded emulator. It serves the example estate,
 * then runs plan, apply, a second plan (which must be empty), the stack's certificate probes
 * against the emulator's issuers, and the compliance check (which judges those probe results).
 * Exit 0; 1 when the apply did not converge; 3 on a mandatory violation; else 4 when a probe failed.
 */
export function registerStart(program: Command, io: CommandIO): void {
  withProbeDirOption(program.command("start"))
    .description("run the main job (plan, apply, plan, probe, check) for a stack against the embedded emulator")
    .option("--stack <name>", "stack to reconcile", "dev")
    .option("--seed <file>", "estate the emulator serves", DEFAULT_ESTATE)
    .action(async (flags: { stack: string; seed: string } & ProbeDirFlags) => {
      const path = stackFilePath(flags.stack, io.cwd);
      const stack = loadStackFile(path, io.env, io.cwd);
      const seed = loadSeedFile(flags.seed, LOCAL_SERVICES);
      const emu = await startEmulator({ seed });
      try {
        io.out(`Embedded emulator at ${emu.url} serving ${flags.seed.replace(`${io.cwd}/`, "")}`);
        const env = {
          ...io.env,
          STACKWARDEN_ARM_ENDPOINT: emu.url,
          STACKWARDEN_IMDS_ENDPOINT: `${emu.url}/metadata`,
          STACKWARDEN_GEOCODING_ENDPOINT: `${emu.url}/geocoding`,
          AZURE_ACCESS_TOKEN: "",
          // The emulator's issuers; its default estate takes any non-empty key (a seed may name its own).
          STACKWARDEN_APISETU_ENDPOINT: `${emu.url}/apisetu`,
          STACKWARDEN_APISETU_API_KEY: io.env.STACKWARDEN_APISETU_API_KEY?.trim() || "stackwarden-start",
          STACKWARDEN_APISETU_CLIENT_ID: io.env.STACKWARDEN_APISETU_CLIENT_ID?.trim() || "stackwarden-start",
        };
        const clients = azureClientsFromEnv(env);
        const { sql } = clients;
        // Before anything changes: a probe that could not run (a missing variable) stops the job here.
        const probes = prepareProbes(stack.probes ?? [], { env });

        io.out("\n== 1. plan ==");
        const first = await planTde(sql, stack);
        io.out(renderPlan(first, stack, flags.stack, "table"));

        io.out("\n== 2. apply ==");
        const applied = await runApply(
          sql,
          stack,
          flags.stack,
          { yes: true, concurrency: 8, scanTimeout: 120, pollInterval: 250 },
          io,
          first,
        );
        if (applied !== 0) {
          io.exitCode = applied;
          return;
        }

        io.out("\n== 3. plan again ==");
        const second = await planTde(sql, stack);
        io.out(renderPlan(second, stack, flags.stack, "table"));
        if (second.changes.length > 0 || second.errors.length > 0) {
          io.err("stackwarden start: the second plan still has changes; apply did not converge");
          io.exitCode = 1;
          return;
        }

        io.out("\n== 4. probe ==");
        const probed = await runProbeStep(probes, flags.stack, "start", { ...io, env }, flags);

        io.out("\n== 5. check ==");
        const kept = lastProbeRunOf(stack, flags.stack, { cwd: io.cwd, env }, flags);
        // The stack's artifacts are scanned by the embedded emulator's binary analysis service.
        const gate = needsArtifactScan(stack)
          ? {
              client: new BinaryAnalysisClient({ endpoint: `${emu.url}${BINARY_ANALYSIS_PREFIX}` }),
              cwd: io.cwd,
              warn: (l: string) => io.err(`stackwarden start: ${l}`),
            }
          : undefined;
        const geocoding = stack.residency ? geocodingClientFromEnv(env) : undefined;
        const result = await runCheck({ ...clients, geocoding }, stack, 16, { lastProbeRun: kept.run, artifacts: gate });
        io.out(
          renderComplianceTable({
            stackName: flags.stack,
            file: stack.file,
            result,
            generatedAt: new Date(),
            toolVersion: VERSION,
            notes: kept.notes,
          }),
        );
        const s = result.summary;
        const artifacts = new Set(result.findings.filter((f) => f.resourceId.startsWith(ARTIFACT_ID_PREFIX)).map((f) => f.resourceId)).size;
        io.out(
          `\nDone: ${first.changes.length} change(s) applied to ${stack.databases.length} database(s); the stack has converged. Probes: ${probed.passed} of ${probed.results.length} passed. Compliance: ${s.mandatoryViolations} mandatory violation(s), ${s.advisoryViolations} advisory finding(s)${gate ? `; ${artifacts} artifact(s) scanned` : ""}.`,
        );
        for (const e of result.scanErrors) io.err(`stackwarden start: artifact ${e.path} could not be scanned: ${e.error}`);
        if (result.scanErrors.length > 0) io.exitCode = 1;
        else if (s.mandatoryViolations > 0) io.exitCode = EXIT_MANDATORY_VIOLATION;
        else if (probed.failed > 0) io.exitCode = EXIT_PROBE_FAILED;
      } finally {
        await emu.close();
      }
    });
}
