import type { ClientSet } from "../clients/client-set";
import { enabledRules, evaluateCompliance, factKeysOf, type ComplianceResult } from "../domain/compliance/evaluate";
import type { ComplianceFacts } from "../domain/facts/model/compliance-facts";
import type { Exemption } from "../domain/compliance/declared-exemption";
import type { RuleDefinition } from "../domain/compliance/rule";
import type { RuleSettings } from "../domain/compliance/rule-settings";
import type { ResourceContext, ResourceInput } from "../domain/facts/fact-kind";
import { factsFromResources, gatherFacts, incompleteReadsIn } from "../domain/facts/gather";
import type { StackConfig } from "../domain/stack/stack-config";
import type { UnreadEntry } from "../domain/stack/unread-entry";
import type { StateStores } from "../domain/state/state-ports";
import type { ScopeCoverage } from "../domain/stack/stack-scope";
import { coverageSentence, markDiscovered } from "../domain/discovery/scope-coverage";
import { discoverScope } from "./scope";

/** One compliance check of a stack. */
export interface CheckRequest {
  stack: StackConfig;
  stackName: string;
  clients: ClientSet;
  /** The directory report paths are relative to. */
  cwd: string;
  /** Where the stack's kept state is (the probe results `post-deploy-probes` judges). */
  state: Pick<StateStores, "probes" | "audit">;
  /** Judge the state the stack's plan leads to (the pull-request gate) instead of the live one. */
  planned?: boolean;
  /** Reads in flight at once, per fact kind. Default 16. */
  concurrency?: number;
  /** Fact kinds to gather beside those the enabled rules judge (a watch tick plans from `databases`). */
  alsoGather?: readonly string[];
  signal?: AbortSignal;
  /** Where warnings go (a glob matching no file). */
  warn?: (line: string) => void;
  /** The time exemptions and observation ages are judged at. Default now. */
  now?: number;
  /** Judge only these rules (a watcher's targeted re-read after a change); default every enabled rule. */
  rules?: readonly RuleDefinition<unknown>[];
}

/** A check's findings, the facts they judged, the artifacts that could not be scanned, and the report's notes. */
export interface CheckOutcome extends ComplianceResult {
  facts: ComplianceFacts;
  /** Subjects that could not be judged at all, an artifact that could not be scanned (each also a not-applicable finding): the check is incomplete. */
  scanErrors: { path: string; error: string }[];
  /** Where facts came from or why some are missing (the probe results judged), for the report. */
  notes: string[];
  /**
   * Resources the stack names that the cloud answered an error for (a database it does not have),
   * each once: their findings are not applicable, and the check is incomplete (exit 1).
   */
  unread: UnreadEntry[];
  /** With `stackwarden:scope`: what the scope covered (listed, discovered); its sentence leads the notes. */
  coverage?: ScopeCoverage;
}

/**
 * Judges a stack with every enabled rule, over the fact kinds those rules name, gathered live (or
 * as the plan leaves them, with `planned`), with the stack's settings and exemptions. `check`,
 * `npm start`, every watch tick and the evidence bundle judge through this.
 */
export async function runCheck(req: CheckRequest): Promise<CheckOutcome> {
  const rules = req.rules ?? enabledRules(req.stack.policies);
  const keys = [...new Set([...factKeysOf(rules), ...(req.alsoGather ?? [])])];
  const notes: string[] = [];
  const unread: UnreadEntry[] = [];
  let stack = req.stack;
  // A targeted re-read (`rules`) judges the stack it is given; a whole check discovers the scope
  // first, once every fact kind's settings are checked (a missing one stops it before any request).
  const widen = async (asked: StackConfig): Promise<StackConfig> => {
    const scoped = await discoverScope(asked, req.clients, req);
    unread.push(...scoped.unread);
    return (stack = scoped.stack);
  };
  const facts = await gatherFacts(
    keys,
    {
      stack,
      stackName: req.stackName,
      clients: req.clients,
      cwd: req.cwd,
      state: req.state,
      concurrency: req.concurrency ?? 16,
      signal: req.signal,
      note: (line) => notes.push(line),
      unread: (entry) => unread.push(entry),
      warn: req.warn ?? (() => {}),
    },
    { planned: req.planned, ...(req.rules ? {} : { widen }) },
  );
  const evaluated = evaluateCompliance(facts, stack.policies, stack.exemptions, req.now ?? Date.now(), rules);
  const result = stack.coverage ? { ...evaluated, findings: markDiscovered(stack.coverage, evaluated.findings) } : evaluated;
  const scanErrors = incompleteReadsIn(facts);
  if (stack.coverage) notes.unshift(coverageSentence(stack.coverage, result.findings));
  return { ...result, facts, scanErrors, notes, unread, ...(stack.coverage ? { coverage: stack.coverage } : {}) };
}

/**
 * The same check over the policy pack's resources: the fact kinds `rules` name, built from the
 * resources (`fromResources`), judged with `settings` and `exemptions`. CrossGuard runs one policy
 * per rule, so a fact kind that fails to build (geocoding refused) fails only the rules that read it.
 */
export async function checkResources(req: {
  rules: readonly RuleDefinition<unknown>[];
  resources: readonly ResourceInput[];
  settings: RuleSettings;
  exemptions: readonly Exemption[];
  context: ResourceContext;
  now?: number;
}): Promise<ComplianceResult> {
  const facts = await factsFromResources(factKeysOf(req.rules), req.resources, req.context);
  return evaluateCompliance(facts, req.settings, req.exemptions, req.now ?? Date.now(), req.rules);
}

/**
 * The exit code a check gives: 1 when an artifact could not be scanned or a resource the stack
 * names could not be read (either is not known to be compliant), 3 on a mandatory violation, else 0.
 */
export function checkExitCode(outcome: Pick<CheckOutcome, "scanErrors" | "summary"> & { unread?: readonly UnreadEntry[] }): number {
  if (outcome.scanErrors.length > 0 || (outcome.unread?.length ?? 0) > 0) return 1;
  return outcome.summary.mandatoryViolations > 0 ? EXIT_MANDATORY_VIOLATION : 0;
}

/** Exit code of `check` (and `start`) when at least one mandatory rule is violated. */
export const EXIT_MANDATORY_VIOLATION = 3;
