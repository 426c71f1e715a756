import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { ClientSet } from "../clients/client-set";
import { UsageError } from "../platform/usage-error";
import type { PartialRuleOptions } from "../services/binary-analysis/client";
import type { PartialYaraRule } from "../services/binary-analysis/types";

/** Partial signature rules (strings, no condition) for one file, from the binary analysis service. */
export async function generatePartialRules(
  clients: ClientSet,
  file: string,
  opts: PartialRuleOptions & { cwd: string },
): Promise<PartialYaraRule> {
  const abs = resolve(opts.cwd, file);
  let isFile: boolean;
  try {
    isFile = statSync(abs).isFile();
  } catch {
    throw new UsageError(`${file}: no such file`);
  }
  if (!isFile) throw new UsageError(`${file}: not a file`);
  const service = await clients.binaryAnalysis();
  return service.client.generatePartialYaraRules(abs, opts);
}
