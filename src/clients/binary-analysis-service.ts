import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalService } from "../emulator/kit/local-service";
import { BinaryAnalysisClient } from "../services/binary-analysis/client";
import { BINARY_ANALYSIS_ENDPOINT_VAR, binaryAnalysisEndpointFromEnv, EMBEDDED_BINARY_ANALYSIS } from "../platform/settings/endpoints";
import { endpointSettingName } from "../platform/settings/emulator-settings";

/** A binary analysis service to scan with, and how to let it go. */
export interface BinaryAnalysisService {
  client: BinaryAnalysisClient;
  /** The base URL the client calls. */
  endpoint: string;
  /** Whether it is the built-in engine, served from this process. */
  embedded: boolean;
  /** The embedded service's directory for uploads (removed by close). */
  workDir?: string;
  /** Stops the embedded service (nothing for a remote one). */
  close(): Promise<void>;
}

/**
 * The binary analysis service that `STACKWARDEN_BINARY_ANALYSIS_ENDPOINT` names. `embedded` starts
 * the built-in one (the emulator's local service: YARA-X and UPX) in this process on a loopback
 * port, so scans take the same path, multipart upload included, as against a remote service.
 * Throws a SettingsError naming the variable when it is unset or not a URL.
 */
export async function openBinaryAnalysisService(env: NodeJS.ProcessEnv = process.env): Promise<BinaryAnalysisService> {
  const endpoint = binaryAnalysisEndpointFromEnv(env);
  if (endpoint !== EMBEDDED_BINARY_ANALYSIS) {
    const endpointSetting = endpointSettingName(env, BINARY_ANALYSIS_ENDPOINT_VAR);
    return { client: new BinaryAnalysisClient({ endpoint, endpointSetting }), endpoint, embedded: false, close: async () => {} };
  }
  // Loaded only when asked for: a remote service's client needs no engine (YARA-X's addon, UPX).
  const { startEmulator } = await import("../emulator/server");
  const { binaryAnalysisLocal, BINARY_ANALYSIS_PREFIX } = await import("../emulator/services/binary-analysis/binary-analysis-local");
  // Its uploads go to a directory of its own, removed with it (each request already removes its files).
  const workDir = mkdtempSync(join(tmpdir(), "stackwarden-embedded-"));
  const emu = await startEmulator({
    host: "127.0.0.1",
    port: 0,
    services: [binaryAnalysisLocal as LocalService],
    seed: { binaryAnalysis: { workDir } },
  });
  const url = `${emu.url}${BINARY_ANALYSIS_PREFIX}`;
  const close = async () => {
    await emu.close();
    await rm(workDir, { recursive: true, force: true });
  };
  return { client: new BinaryAnalysisClient({ endpoint: url }), endpoint: url, embedded: true, workDir, close };
}
