import { stat } from "node:fs/promises";

/**
 * What a file looks like now (device, inode, size, modification and change times): a changed file
 * has another stamp. Undefined when nothing is there. The scan cache keys its hints by it.
 */
export async function fileStampOf(path: string): Promise<string | undefined> {
  try {
    const s = await stat(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return undefined;
  }
}
