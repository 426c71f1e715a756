import { allDataSources } from "../../src/domain/facts/data-source-registry";
import type { StackConfig } from "../../src/domain/stack/stack-config";

/**
 * How many resources the Pulumi program (stacks/program.ts) registers at once for a stack, derived
 * from the registries: one TransparentDataEncryption per database, every registered data source's
 * instances for the stack (a new fact kind's carrier counts without a word in any test), one
 * CertificateProbe per probe, the Residency resource when the stack sets residency, and the
 * artifact scans the caller counts (they depend on the files a glob finds). Data sources that follow
 * another's outputs (a protector's vault and key) come later and are not counted: see
 * `followingSourceTypes`. Tests assert the exact number, so a source the program forgets or
 * registers twice still fails them.
 */
export function resourcesRegisteredAtOnce(stack: StackConfig, artifactScans = 0): number {
  const sources = allDataSources().reduce((n, s) => n + (s.instances?.(stack).length ?? 0), 0);
  return stack.databases.length + sources + (stack.probes?.length ?? 0) + (stack.residency ? 1 : 0) + artifactScans;
}

/** The resource types of the data sources registered only once another's outputs are read. */
export function followingSourceTypes(): Set<string> {
  return new Set(allDataSources().flatMap((s) => (s.follows ? [s.type] : [])));
}
