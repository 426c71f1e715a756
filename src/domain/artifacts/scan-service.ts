import type { RuleSource, YaraScanResult } from "../../services/binary-analysis/types";

/**
 * What the artifact gate asks of the binary analysis service: its client satisfies it (the domain
 * names no client class). A failed call is thrown as a CallFailure (src/platform/errors) with the
 * service's error code (`ERROR_CODE` of its types).
 */
export interface ArtifactScanService {
  /** The service's base URL (part of the scan cache's keys: one service's results are never used for another's). */
  readonly endpoint: string;
  /** `/apply-yara-rules`: the file uploaded and scanned with the rules (unpacked first with `unpack`). */
  applyYaraRules(
    file: string,
    rules: readonly RuleSource[],
    opts?: { signal?: AbortSignal; onFileRead?: () => void; unpack?: boolean },
  ): Promise<YaraScanResult>;
}
