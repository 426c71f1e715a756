import { newClientSet } from "../clients/client-set";
import { startEmbeddedEmulator } from "../clients/embedded-emulator";
import { ARTIFACT_ID_PREFIX } from "../domain/compliance/artifact-verdict";
import { enabledRules } from "../domain/compliance/evaluate";
import { artifactScans } from "../domain/facts/artifact-scans";
import { planTde, type TdePlan } from "../domain/reconcile/tde-plan";
import type { StackConfig } from "../domain/stack/stack-config";
import type { StateStores } from "../domain/state/state-ports";
import { openMemoryState } from "../platform/state/memory/memory-state";
import { reconcileStack, type ApplyHooks } from "./reconcile";
import { checkExitCode, runCheck, type CheckOutcome } from "./check";
import { writableStack } from "./scope";
import { EXIT_PROBE_FAILED, prepareStackProbes, runStackProbes, type ProbeOutcome } from "./probe";

/** The steps of the main job, in order. */
export type StartStep = "plan" | "apply" | "plan again" | "probe" | "check";

/** How the main job tells its caller what it does, step by step. */
export interface StartHooks {
  /** The embedded emulator is serving, at `url`. */
  emulatorStarted?(url: string): void;
  /** A step begins. */
  step?(n: number, step: StartStep): void;
  /** A plan was read (`first` before the apply, else the one that must be empty). */
  planned?(plan: TdePlan, first: boolean): void;
  /** The apply's own hooks (progress, summary). */
  apply?: ApplyHooks;
  /** The second plan still has changes: the apply did not converge. */
  notConverged?(): void;
  probed?(outcome: ProbeOutcome): void | Promise<void>;
  checked?(outcome: CheckOutcome): void;
  /** A warning (an artifact glob that matches no file). */
  warn?(line: string): void;
}

/** What the main job did. */
export interface StartOutcome {
  /** 0; 1 when the apply did not converge or an artifact could not be scanned; 3 a mandatory violation; else 4 when a probe failed. */
  exitCode: number;
  /** The first plan (its changes are what was applied). */
  plan: TdePlan;
  probes?: ProbeOutcome;
  check?: CheckOutcome;
  /** How many artifacts the check scanned (those with a finding); undefined when the stack ships none to scan. */
  artifactsScanned?: number;
}

/**
 * `npm start`: the main job against the embedded emulator serving `seedFile`. Plan, apply, a
 * second plan (which must be empty), the stack's certificate probes against the emulator's
 * issuers, and the compliance check (which judges those probe results). The emulator stops when
 * the job ends.
 */
export async function runStart(
  req: { stack: StackConfig; stackName: string; seedFile: string; env: NodeJS.ProcessEnv; cwd: string; state: StateStores },
  hooks: StartHooks = {},
): Promise<StartOutcome> {
  const { stack } = req;
  const emu = await startEmbeddedEmulator(req.seedFile);
  try {
    hooks.emulatorStarted?.(emu.url);
    const env = emu.env(req.env);
    const clients = newClientSet(env);
    try {
      // Before anything changes: a probe that could not run (a missing variable) stops the job here.
      const prepared = prepareStackProbes(stack.probes, clients, env);

      hooks.step?.(1, "plan");
      // The databases it may write: the listed ones, and those its scope discovers when it opts in to remediation.
      const target = (await writableStack(stack, clients)).stack;
      const plan = await planTde(clients.sql, target);
      hooks.planned?.(plan, true);

      hooks.step?.(2, "apply");
      const tuning = { concurrency: 8, scanTimeoutMs: 120_000, pollIntervalMs: 250 };
      // Changes to the embedded emulator are not the cloud's: locked and audited as every apply is, in
      // memory, so no audit trail of the real estate records them.
      const scratch = openMemoryState("npm start");
      const applied = await reconcileStack(
        {
          ...tuning,
          stack: target,
          stackName: req.stackName,
          clients,
          cwd: req.cwd,
          state: scratch,
          command: "start",
          lockTimeoutMs: 0,
          engine: "native",
          yes: true,
          only: plan.changes,
        },
        hooks.apply,
      );
      if (applied.exitCode !== 0) return { exitCode: applied.exitCode, plan };

      hooks.step?.(3, "plan again");
      const second = await planTde(clients.sql, target);
      hooks.planned?.(second, false);
      if (second.changes.length > 0 || second.errors.length > 0) {
        hooks.notConverged?.();
        return { exitCode: 1, plan };
      }

      hooks.step?.(4, "probe");
      const probes = await runStackProbes(prepared, { stackName: req.stackName, state: req.state, command: "start" });
      await hooks.probed?.(probes);

      hooks.step?.(5, "check");
      const check = await runCheck({ stack, stackName: req.stackName, clients, cwd: req.cwd, state: req.state, warn: hooks.warn });
      hooks.checked?.(check);
      const gated = !!stack.artifacts && enabledRules(stack.policies).some((r) => r.facts.includes(artifactScans.key));
      const scanned = new Set(check.findings.filter((f) => f.resourceId.startsWith(ARTIFACT_ID_PREFIX)).map((f) => f.resourceId));
      const artifactsScanned = gated ? scanned.size : undefined;
      const checked = checkExitCode(check);
      const exitCode = checked !== 0 ? checked : probes.run.failed > 0 ? EXIT_PROBE_FAILED : 0;
      return { exitCode, plan, probes, check, artifactsScanned };
    } finally {
      await clients.close();
    }
  } finally {
    await emu.close();
  }
}
