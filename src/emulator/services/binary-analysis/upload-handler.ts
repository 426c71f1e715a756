import { Readable } from "node:stream";
import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import { ERROR_CODE, FIELD } from "../../../services/binary-analysis/types";
import type { AnalysisRuntime } from "./analysis-runtime";
import { receiveUpload, type Upload } from "./multipart-upload";
import { openWorkspace, type Workspace } from "./request-workspace";
import { errorReply, ServiceError } from "./upload-error";

/** An upload whose `file` part arrived. */
export type FileUpload = Upload & { file: NonNullable<Upload["file"]> };

/** What a route does with an upload received into its workspace. */
export type UploadWork = (rt: AnalysisRuntime, req: EmulatorRequest, upload: FileUpload, ws: Workspace) => Promise<EmulatorReply>;

/**
 * A route handler that receives the upload into a fresh workspace, runs `work`, and removes the
 * workspace when the reply is done: once a streamed reply closes, at once otherwise (failures too).
 * A ServiceError becomes the service's error reply.
 */
export function withUpload(work: UploadWork): (rt: AnalysisRuntime, req: EmulatorRequest) => Promise<EmulatorReply> {
  return async (rt, req) => {
    const ws = await openWorkspace(rt.workDir);
    rt.active.add(ws.dir);
    const dispose = () => ws.dispose().finally(() => rt.active.delete(ws.dir));
    let handedOff = false;
    try {
      const upload = await receiveUpload(req.headers, req.bodyStream!, ws.dir, rt.limits, req.signal);
      if (!upload.file) throw new ServiceError(400, ERROR_CODE.badRequest, `the multipart body has no "${FIELD.file}" part`);
      const reply = await work(rt, req, upload as FileUpload, ws);
      if (reply.body instanceof Readable) {
        handedOff = true;
        reply.body.once("close", () => void dispose());
      }
      return reply;
    } catch (e) {
      if (e instanceof ServiceError) return errorReply(e);
      if (req.signal.aborted) return { status: 400, body: { status: 400, message: "the client went away", code: ERROR_CODE.badRequest } };
      throw e;
    } finally {
      if (!handedOff) await dispose();
    }
  };
}
