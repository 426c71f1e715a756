import type { UploadLimits } from "./multipart-upload";
import type { ScanSlots } from "./scan-slots";

/** What the binary analysis service's mount builds once and every route of its table shares. */
export interface AnalysisRuntime {
  /** Directory of the requests' temporary workspaces. */
  workDir: string;
  /** Scans running at once, bounded by count and by bytes. */
  slots: ScanSlots;
  /** Workspaces of requests still in progress: `/clean` leaves them alone. */
  active: Set<string>;
  limits: UploadLimits;
}
