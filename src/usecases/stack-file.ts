import { readStackFile } from "../platform/files/stack-files";
import { parseStackConfig, type StackConfig } from "../domain/stack/stack-config";

/**
 * Reads, parses and validates a stack file: the file is read here (src/platform/files), the text is
 * judged by the domain. Nothing else happens before this succeeds.
 */
export function loadStackFile(path: string, env: NodeJS.ProcessEnv, cwd: string): StackConfig {
  const { file, text } = readStackFile(path, cwd);
  return parseStackConfig(file, text, env);
}
