import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import type { RouteTable } from "../../kit/route-table";
import { withFileSource } from "../../../platform/executables/byte-source";
import { readExecutable, type ExecutableInfo } from "../../../platform/executables/executable-format";
import { ERROR_CODE, FIELD, MAX_RULES_PER_REQUEST, type UnpackingReport } from "../../../services/binary-analysis/types";
import type { AnalysisRuntime } from "./analysis-runtime";
import { booleanField, decodedRule, fieldList, minimumStringLength } from "./form-fields";
import { examineFile, packerName, unpackFailure } from "./packed-file";
import { generatePartialRule } from "./partial-rule";
import type { Workspace } from "./request-workspace";
import { staticReport } from "./static-report";
import { withUpload, type FileUpload } from "./upload-handler";
import { ServiceError } from "./upload-error";
import { compileRuleSources, ENGINE, RuleCompileFailure, scanWithRules } from "./yara-engine";

/** Uploads stream to disk as they arrive: the routes that take one read the body themselves. */
const STREAMED = { streamBody: true } as const;

/** Most `strings_to_ignore` one request may send. */
const MAX_STRINGS_TO_IGNORE = 1000;

/** The binary analysis service's routes (restful4up's API), under BINARY_ANALYSIS_PREFIX. */
export const BINARY_ANALYSIS_ROUTES: RouteTable<AnalysisRuntime> = [
  { method: "POST", path: "/apply-yara-rules", handler: withUpload(applyYaraRules), options: STREAMED },
  { method: "POST", path: "/unpack", handler: withUpload(unpackUpload), options: STREAMED },
  { method: "POST", path: "/emulation-output", handler: withUpload(emulationOutput), options: STREAMED },
  { method: "POST", path: "/generate-partial-yara-rules", handler: withUpload(generatePartialYaraRules), options: STREAMED },
  { method: "HEAD", path: "/clean", handler: cleanLeftovers },
];

/** `/apply-yara-rules`: the upload (unpacked first when asked) scanned with 1 to 10 base64 rules. */
async function applyYaraRules(rt: AnalysisRuntime, req: EmulatorRequest, upload: FileUpload, ws: Workspace): Promise<EmulatorReply> {
  const sources = ruleSources(upload);
  const unpack = booleanField(upload, FIELD.isUnpackingRequired);
  return rt.slots.run(
    async () => {
      const set = compiledRules(sources);
      const { target, unpacking } = await scanTarget(upload, ws, unpack, req.signal);
      const matched = await scanWithRules(set, target);
      const scanned = unpacking.status === "unpacked" ? "unpacked upload" : "upload";
      const result = {
        yara_command: `${ENGINE}: scanFile(${scanned}) with rules[0..${sources.length - 1}]`,
        is_success: true,
        matched_yara_rules: matched,
        unpacking,
      };
      return { status: 200, body: { result } };
    },
    req.signal,
    upload.file.size,
  );
}

/** The request's rule sources, decoded: at least one, at most MAX_RULES_PER_REQUEST. */
function ruleSources(upload: FileUpload): string[] {
  const rules = fieldList(upload, FIELD.rules);
  if (rules.length === 0) throw new ServiceError(400, ERROR_CODE.badRequest, `"${FIELD.rules}" needs at least one rule (base64)`);
  if (rules.length > MAX_RULES_PER_REQUEST) {
    throw new ServiceError(
      400,
      ERROR_CODE.tooManyRules,
      `"${FIELD.rules}" may hold at most ${MAX_RULES_PER_REQUEST} rules a request; got ${rules.length}: send the rest in another request`,
    );
  }
  return rules.map((r, i) => decodedRule(r, i));
}

/** The rules compiled together; a rule that does not compile is a 400 naming its index. */
function compiledRules(sources: string[]): ReturnType<typeof compileRuleSources> {
  try {
    return compileRuleSources(sources);
  } catch (e) {
    if (e instanceof RuleCompileFailure) throw new ServiceError(400, ERROR_CODE.ruleCompile, e.message, { rule_index: e.index });
    throw e;
  }
}

/** The file to scan: the unpacked upload when unpacking was asked and the file is packed, else the upload. */
async function scanTarget(
  upload: FileUpload,
  ws: Workspace,
  unpack: boolean,
  signal: AbortSignal,
): Promise<{ target: string; unpacking: UnpackingReport }> {
  if (!unpack) return { target: upload.file.path, unpacking: { status: "not-requested" } };
  const { packer, outcome } = await examineFile(upload.file.path, ws, true, signal);
  if (packer && outcome.kind !== "unpacked") throw unpackFailure(packer, outcome);
  if (outcome.kind !== "unpacked") return { target: upload.file.path, unpacking: { status: "not-packed" } };
  return { target: outcome.path, unpacking: { status: "unpacked", packer: packerName(packer!), unpackedSize: outcome.size } };
}

/** `/unpack`: the unpacked file, streamed back as an attachment. */
async function unpackUpload(rt: AnalysisRuntime, req: EmulatorRequest, upload: FileUpload, ws: Workspace): Promise<EmulatorReply> {
  return rt.slots.run(
    async () => {
      const { packer, outcome } = await examineFile(upload.file.path, ws, true, req.signal);
      if (!packer)
        throw new ServiceError(400, ERROR_CODE.notPacked, "the file is not packed (no packer detected): there is nothing to unpack");
      if (outcome.kind !== "unpacked") throw unpackFailure(packer, outcome);
      return {
        status: 200,
        headers: {
          "content-type": "application/octet-stream",
          "content-length": String(outcome.size),
          "content-disposition": `attachment; filename="unpacked_${asciiName(upload.file.filename)}"`,
        },
        body: createReadStream(outcome.path),
      };
    },
    req.signal,
    upload.file.size,
  );
}

/** `/emulation-output`: an honest static report of the file (and of its unpacked form); nothing is emulated. */
async function emulationOutput(rt: AnalysisRuntime, req: EmulatorRequest, upload: FileUpload, ws: Workspace): Promise<EmulatorReply> {
  return rt.slots.run(
    async () => {
      const { info, packer, outcome } = await examineFile(upload.file.path, ws, true, req.signal);
      const output = await staticReport({ path: upload.file.path, filename: upload.file.filename, info, packer, unpack: outcome });
      return { status: 200, body: { output } };
    },
    req.signal,
    upload.file.size,
  );
}

/** `/generate-partial-yara-rules`: a rule built from the file's strings (the unpacked file's when asked). */
async function generatePartialYaraRules(
  rt: AnalysisRuntime,
  req: EmulatorRequest,
  upload: FileUpload,
  ws: Workspace,
): Promise<EmulatorReply> {
  const unpack = booleanField(upload, FIELD.isUnpackingRequired);
  const minimumLength = minimumStringLength(upload);
  const ignore = fieldList(upload, FIELD.stringsToIgnore);
  if (ignore.length > MAX_STRINGS_TO_IGNORE)
    throw new ServiceError(
      400,
      ERROR_CODE.badRequest,
      `"${FIELD.stringsToIgnore}" may hold at most ${MAX_STRINGS_TO_IGNORE} strings; got ${ignore.length}`,
    );
  return rt.slots.run(
    async () => {
      const source = await ruleSource(upload, ws, unpack, req.signal);
      const rule = await generatePartialRule({
        ...source,
        filename: upload.file.filename,
        minimumStringLength: minimumLength,
        stringsToIgnore: ignore,
      });
      return { status: 200, body: { rule } };
    },
    req.signal,
    upload.file.size,
  );
}

/** The file a partial rule is drawn from, with its format, and the packed upload's digest when it was unpacked. */
async function ruleSource(
  upload: FileUpload,
  ws: Workspace,
  unpack: boolean,
  signal: AbortSignal,
): Promise<{ path: string; info: ExecutableInfo; unpackedFromSha256?: string }> {
  const { info, packer, outcome } = await examineFile(upload.file.path, ws, unpack, signal);
  if (!unpack || !packer) return { path: upload.file.path, info, unpackedFromSha256: undefined };
  if (outcome.kind !== "unpacked") throw unpackFailure(packer, outcome);
  return {
    path: outcome.path,
    info: await withFileSource(outcome.path, readExecutable),
    unpackedFromSha256: await sha256Of(upload.file.path),
  };
}

/**
 * `HEAD /clean`. restful4up keeps uploads until /clean; here each request removes its own files,
 * so /clean only sweeps what a crash may have left behind (never a request still in progress).
 */
async function cleanLeftovers(rt: AnalysisRuntime): Promise<EmulatorReply> {
  let names: string[] = [];
  try {
    names = await readdir(rt.workDir);
  } catch {
    /* nothing uploaded yet */
  }
  await Promise.all(
    names
      .map((n) => join(rt.workDir, n))
      .filter((p) => /[/\\]req-[^/\\]+$/.test(p) && !rt.active.has(p))
      .map((p) => rm(p, { recursive: true, force: true })),
  );
  return { status: 204 };
}

function asciiName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100) || "file";
}

async function sha256Of(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const c of createReadStream(path) as AsyncIterable<Buffer>) h.update(c);
  return h.digest("hex");
}
