import { createReadStream } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { randomBytes } from "node:crypto";
import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import type { LocalService } from "../../kit/local-service";
import { withFileSource } from "../../../platform/executables/byte-source";
import { readExecutable, type ExecutableInfo } from "../../../platform/executables/executable-format";
import { detectPacker, type DetectedPacker } from "../../../platform/executables/packer-detection";
import { ERROR_CODE, FIELD, MAX_RULES_PER_REQUEST, type UnpackingReport } from "../../../services/binary-analysis/types";
import { receiveUpload, type Upload, type UploadLimits } from "./multipart-upload";
import { openWorkspace, type Workspace } from "./request-workspace";
import { ScanSlots } from "./scan-slots";
import { errorReply, ServiceError } from "./upload-error";
import { upxUnpack } from "./upx";
import { compileRuleSources, ENGINE, RuleCompileFailure, scanWithRules } from "./yara-engine";
import { staticReport, type UnpackOutcome } from "./static-report";
import { DEFAULT_MINIMUM_STRING_LENGTH, generatePartialRule } from "./partial-rule";
import { createHash } from "node:crypto";

/** Where the service is mounted on the emulator. */
export const BINARY_ANALYSIS_PREFIX = "/binary-analysis/v1";

/** The `binaryAnalysis:` section of a seed. */
export interface BinaryAnalysisSeed {
  /** Largest file accepted, in bytes (413 above it). Default 1 GiB. */
  maxUploadBytes?: number;
  /** Scans (YARA, UPX, reports) running at once; the rest wait. Default: the number of CPUs. */
  maxConcurrentScans?: number;
  /** Directory for the requests' temporary files. Default: a fresh directory under the system temp directory. */
  workDir?: string;
  /** Bytes of files being scanned at once (a scan holds its file in memory); a larger file runs alone. Default 256 MiB. */
  maxScanBytes?: number;
}

/** The service's settings (its state: it keeps no data between requests). */
export type BinaryAnalysisState = Required<BinaryAnalysisSeed>;

const DEFAULT_MAX_UPLOAD = 1024 * 1024 * 1024;
const DEFAULT_MAX_SCAN_BYTES = 256 * 1024 * 1024;
/** A base64 rule source may be this large (about 768 KiB of rule text). */
const MAX_FIELD_BYTES = 1024 * 1024;

/**
 * The binary analysis service (restful4up's API) on real engines: YARA rules run on YARA-X
 * (`@litko/yara-x`), unpacking runs the bundled UPX, partial rules come from the file's strings,
 * and `/emulation-output` is an honest static report (nothing is emulated here). Uploads stream
 * to a per-request temporary directory that is removed when the request ends, however it ends.
 */
export const binaryAnalysisLocal: LocalService<BinaryAnalysisState, BinaryAnalysisSeed> = {
  name: "binaryAnalysis",
  seedSchema: {
    type: "object",
    additionalProperties: false,
    properties: {
      maxUploadBytes: { type: "integer", minimum: 1, description: "largest file accepted, in bytes; default 1 GiB" },
      maxConcurrentScans: { type: "integer", minimum: 1, maximum: 256, description: "scans at once; default the CPU count" },
      workDir: { type: "string", minLength: 1, description: "directory for temporary files; default under the system temp directory" },
      maxScanBytes: { type: "integer", minimum: 1, description: "bytes of files scanned at once; default 256 MiB" },
    },
  },

  initialState(seed) {
    return {
      maxUploadBytes: seed?.maxUploadBytes ?? DEFAULT_MAX_UPLOAD,
      maxConcurrentScans: seed?.maxConcurrentScans ?? Math.max(1, availableParallelism()),
      workDir: seed?.workDir ?? join(tmpdir(), "stackwarden-binary-analysis", `${process.pid}-${randomBytes(4).toString("hex")}`),
      maxScanBytes: seed?.maxScanBytes ?? DEFAULT_MAX_SCAN_BYTES,
    };
  },

  mount(ctx) {
    const settings = ctx.state();
    // Older persisted state has no byte budget: the default applies.
    const slots = new ScanSlots(settings.maxConcurrentScans, settings.maxScanBytes ?? DEFAULT_MAX_SCAN_BYTES);
    const active = new Set<string>();
    const limits: UploadLimits = { maxFileBytes: settings.maxUploadBytes, maxFieldBytes: MAX_FIELD_BYTES, maxFields: 1100 };

    /** Receives the upload into a workspace, runs `work`, and removes the workspace when the reply is done (or at once on failure). */
    const withUpload =
      (work: (req: EmulatorRequest, upload: Upload & { file: NonNullable<Upload["file"]> }, ws: Workspace) => Promise<EmulatorReply>) =>
      async (req: EmulatorRequest): Promise<EmulatorReply> => {
        const ws = await openWorkspace(settings.workDir);
        active.add(ws.dir);
        const dispose = () => ws.dispose().finally(() => active.delete(ws.dir));
        let handedOff = false;
        try {
          const upload = await receiveUpload(req.headers, req.bodyStream!, ws.dir, limits, req.signal);
          if (!upload.file) throw new ServiceError(400, ERROR_CODE.badRequest, `the multipart body has no "${FIELD.file}" part`);
          const reply = await work(req, upload as Upload & { file: NonNullable<Upload["file"]> }, ws);
          if (reply.body instanceof Readable) {
            handedOff = true;
            reply.body.once("close", () => void dispose());
          }
          return reply;
        } catch (e) {
          if (e instanceof ServiceError) return errorReply(e);
          if (req.signal.aborted)
            return { status: 400, body: { status: 400, message: "the client went away", code: ERROR_CODE.badRequest } };
          throw e;
        } finally {
          if (!handedOff) await dispose();
        }
      };

    /** Detects a packer and, when asked and possible, unpacks into the workspace. */
    const examine = async (path: string, ws: Workspace, unpack: boolean, signal: AbortSignal) => {
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
    };

    const unpackFailure = (packer: DetectedPacker, outcome: UnpackOutcome): ServiceError =>
      new ServiceError(
        400,
        ERROR_CODE.unpackFailed,
        outcome.kind === "failed"
          ? `the file is packed (${packerName(packer)}) but could not be unpacked: ${outcome.message}`
          : `the file is packed with ${packerName(packer)}, which this service cannot unpack (only UPX)`,
      );

    ctx.app.route(
      "POST",
      `${BINARY_ANALYSIS_PREFIX}/apply-yara-rules`,
      withUpload(async (req, upload, ws) => {
        const rules = fieldList(upload, FIELD.rules);
        if (rules.length === 0) throw new ServiceError(400, ERROR_CODE.badRequest, `"${FIELD.rules}" needs at least one rule (base64)`);
        if (rules.length > MAX_RULES_PER_REQUEST) {
          throw new ServiceError(
            400,
            ERROR_CODE.tooManyRules,
            `"${FIELD.rules}" may hold at most ${MAX_RULES_PER_REQUEST} rules a request; got ${rules.length}: send the rest in another request`,
          );
        }
        const sources = rules.map((r, i) => decodeRule(r, i));
        const unpack = flag(upload, FIELD.isUnpackingRequired);
        return slots.run(
          async () => {
            let set;
            try {
              set = compileRuleSources(sources);
            } catch (e) {
              if (e instanceof RuleCompileFailure) throw new ServiceError(400, ERROR_CODE.ruleCompile, e.message, { rule_index: e.index });
              throw e;
            }
            let target = upload.file.path;
            let unpacking: UnpackingReport = { status: "not-requested" };
            if (unpack) {
              const { packer, outcome } = await examine(upload.file.path, ws, true, req.signal);
              if (packer && outcome.kind !== "unpacked") throw unpackFailure(packer, outcome);
              if (outcome.kind === "unpacked") {
                target = outcome.path;
                unpacking = { status: "unpacked", packer: packerName(packer!), unpackedSize: outcome.size };
              } else unpacking = { status: "not-packed" };
            }
            const matched = await scanWithRules(set, target);
            return {
              status: 200,
              body: {
                result: {
                  yara_command: `${ENGINE}: scanFile(${unpacking.status === "unpacked" ? "unpacked upload" : "upload"}) with rules[0..${sources.length - 1}]`,
                  is_success: true,
                  matched_yara_rules: matched,
                  unpacking,
                },
              },
            };
          },
          req.signal,
          upload.file.size,
        );
      }),
      { streamBody: true },
    );

    ctx.app.route(
      "POST",
      `${BINARY_ANALYSIS_PREFIX}/unpack`,
      withUpload(async (req, upload, ws) =>
        slots.run(
          async () => {
            const { packer, outcome } = await examine(upload.file.path, ws, true, req.signal);
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
        ),
      ),
      { streamBody: true },
    );

    ctx.app.route(
      "POST",
      `${BINARY_ANALYSIS_PREFIX}/emulation-output`,
      withUpload(async (req, upload, ws) =>
        slots.run(
          async () => {
            const { info, packer, outcome } = await examine(upload.file.path, ws, true, req.signal);
            const output = await staticReport({ path: upload.file.path, filename: upload.file.filename, info, packer, unpack: outcome });
            return { status: 200, body: { output } };
          },
          req.signal,
          upload.file.size,
        ),
      ),
      { streamBody: true },
    );

    ctx.app.route(
      "POST",
      `${BINARY_ANALYSIS_PREFIX}/generate-partial-yara-rules`,
      withUpload(async (req, upload, ws) => {
        const unpack = flag(upload, FIELD.isUnpackingRequired);
        const minimum = minimumLength(upload);
        const ignore = fieldList(upload, FIELD.stringsToIgnore);
        if (ignore.length > 1000)
          throw new ServiceError(
            400,
            ERROR_CODE.badRequest,
            `"${FIELD.stringsToIgnore}" may hold at most 1000 strings; got ${ignore.length}`,
          );
        return slots.run(
          async () => {
            const { info, packer, outcome } = await examine(upload.file.path, ws, unpack, req.signal);
            let path = upload.file.path;
            let scanned: ExecutableInfo = info;
            let unpackedFromSha256: string | undefined;
            if (unpack && packer) {
              if (outcome.kind !== "unpacked") throw unpackFailure(packer, outcome);
              path = outcome.path;
              scanned = await withFileSource(path, readExecutable);
              unpackedFromSha256 = await sha256Of(upload.file.path);
            }
            const rule = await generatePartialRule({
              path,
              filename: upload.file.filename,
              info: scanned,
              minimumStringLength: minimum,
              stringsToIgnore: ignore,
              unpackedFromSha256,
            });
            return { status: 200, body: { rule } };
          },
          req.signal,
          upload.file.size,
        );
      }),
      { streamBody: true },
    );

    // restful4up keeps uploads until /clean; here each request removes its own files, so /clean
    // only sweeps what a crash may have left behind.
    ctx.app.route("HEAD", `${BINARY_ANALYSIS_PREFIX}/clean`, async () => {
      let names: string[] = [];
      try {
        names = await readdir(settings.workDir);
      } catch {
        /* nothing uploaded yet */
      }
      await Promise.all(
        names
          .map((n) => join(settings.workDir, n))
          .filter((p) => /[/\\]req-[^/\\]+$/.test(p) && !active.has(p))
          .map((p) => rm(p, { recursive: true, force: true })),
      );
      return { status: 204 };
    });
  },
};

function fieldList(upload: Upload, name: string): string[] {
  // Some clients name repeated fields `rules[]`.
  return [...(upload.fields.get(name) ?? []), ...(upload.fields.get(`${name}[]`) ?? [])];
}

function flag(upload: Upload, name: string): boolean {
  const v = fieldList(upload, name);
  if (v.length === 0) return false;
  const value = v[v.length - 1].trim().toLowerCase();
  if (value !== "true" && value !== "false")
    throw new ServiceError(400, ERROR_CODE.badRequest, `"${name}" must be "true" or "false"; got "${v[v.length - 1]}"`);
  return value === "true";
}

function minimumLength(upload: Upload): number {
  const v = fieldList(upload, FIELD.minimumStringLength);
  if (v.length === 0 || v[v.length - 1].trim() === "") return DEFAULT_MINIMUM_STRING_LENGTH;
  const raw = v[v.length - 1].trim();
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 200)
    throw new ServiceError(400, ERROR_CODE.badRequest, `"${FIELD.minimumStringLength}" must be an integer from 1 to 200; got "${raw}"`);
  return n;
}

function decodeRule(value: string, index: number): string {
  const compact = value.replace(/\s+/g, "");
  if (compact.length === 0 || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) {
    throw new ServiceError(400, ERROR_CODE.badRequest, `rules[${index}] is not base64 (each rule is sent as a base64 string)`, {
      rule_index: index,
    });
  }
  const text = Buffer.from(compact, "base64").toString("utf8");
  if (text.trim() === "") throw new ServiceError(400, ERROR_CODE.badRequest, `rules[${index}] is empty`, { rule_index: index });
  return text;
}

function packerName(p: DetectedPacker): string {
  return `${p.name}${p.version ? ` ${p.version}` : ""}`;
}

function asciiName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100) || "file";
}

async function sha256Of(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const c of createReadStream(path) as AsyncIterable<Buffer>) h.update(c);
  return h.digest("hex");
}
