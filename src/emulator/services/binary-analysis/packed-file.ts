import { join } from "node:path";
import { withFileSource } from "../../../platform/executables/byte-source";
import { readExecutable, type ExecutableInfo } from "../../../platform/executables/executable-format";
import { detectPacker, type DetectedPacker } from "../../../platform/executables/packer-detection";
import { ERROR_CODE } from "../../../services/binary-analysis/types";
import type { Workspace } from "./request-workspace";
import type { UnpackOutcome } from "./static-report";
import { ServiceError } from "./upload-error";
import { upxUnpack } from "./upx";

/** What examining an uploaded file found: its format, its packer if any, and what unpacking gave. */
export interface Examination {
  info: ExecutableInfo;
  packer: DetectedPacker | undefined;
  outcome: UnpackOutcome;
}

/** Detects a packer and, when `unpack` is asked and the packer is one UPX unpacks, unpacks into the workspace. */
export async function examineFile(path: string, ws: Workspace, unpack: boolean, signal: AbortSignal): Promise<Examination> {
  const { info, packer } = await withFileSource(path, async (src) => {
    const info = await readExecutable(src);
    return { info, packer: await detectPacker(src, info) };
  });
  let outcome: UnpackOutcome = { kind: "not-packed" };
  if (packer && !packer.unpackable) outcome = { kind: "unsupported", packer };
  else if (packer && unpack) {
    const out = join(ws.dir, "unpacked.bin");
    const r = await upxUnpack(path, out, signal);
    outcome = r.ok
      ? { kind: "unpacked", packer, path: out, size: await withFileSource(out, async (s) => s.size) }
      : { kind: "failed", packer, message: r.message };
  }
  return { info, packer, outcome };
}

/** The 400 for a packed file that was not unpacked: the unpacker failed, or no unpacker knows the packer. */
export function unpackFailure(packer: DetectedPacker, outcome: UnpackOutcome): ServiceError {
  return new ServiceError(
    400,
    ERROR_CODE.unpackFailed,
    outcome.kind === "failed"
      ? `the file is packed (${packerName(packer)}) but could not be unpacked: ${outcome.message}`
      : `the file is packed with ${packerName(packer)}, which this service cannot unpack (only UPX)`,
  );
}

/** A packer as answers name it: `UPX 3.96`, or the name alone when the version is unknown. */
export function packerName(p: DetectedPacker): string {
  return `${p.name}${p.version ? ` ${p.version}` : ""}`;
}
