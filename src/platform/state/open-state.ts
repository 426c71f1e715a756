import type { TokenCredential } from "../http/token-credential";
import { stateDirs } from "../settings/state-dirs";
import { openFileState } from "./files/file-state";
import { parseStateUrl, STATE_KEY_VAR, STATE_URL_VAR } from "./state-url";

/** What opening the state needs: where commands run, their environment and flags. */
export interface StateSettings {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--state-url`, when given (it wins over STACKWARDEN_STATE_URL). */
  url?: string;
  /** `--lock-dir`, `--audit-dir`, `--probe-dir` (local files only). */
  dirs?: { lockDir?: string; auditDir?: string; probeDir?: string };
  /** The credential chain, for a Blob Storage URL with neither SAS nor account key; asked for only then. */
  credential?: () => TokenCredential;
}

/**
 * Opens the state stores (locks, audit trails, probe results, the watcher's status and events)
 * where the settings say: local files (unset, or `file:DIR`), or a container of Azure Blob Storage
 * or Azurite (STACKWARDEN_STATE_URL / --state-url; SW_STATE_URL_INVALID for anything else).
 */
export async function openStateStores(settings: StateSettings) {
  const where = settings.url !== undefined ? "--state-url" : STATE_URL_VAR;
  const loc = parseStateUrl(settings.url ?? settings.env[STATE_URL_VAR], where);
  if (loc.kind === "files") return openFileState(stateDirs(settings.cwd, settings.env, settings.dirs, loc.dir), settings.cwd);
  const leaseSeconds = settings.env.STACKWARDEN_LEASE_SECONDS ? Number(settings.env.STACKWARDEN_LEASE_SECONDS) : undefined;
  const tryTimeoutMs = settings.env.STACKWARDEN_STATE_TIMEOUT_MS ? Number(settings.env.STACKWARDEN_STATE_TIMEOUT_MS) : undefined;
  // Loaded only here: the Blob Storage SDK is ~0.2 s of start-up that a run on local state never needs.
  const { openBlobState } = await import("./blob/blob-state");
  return openBlobState(
    {
      ...loc,
      accountKey: settings.env[STATE_KEY_VAR]?.trim() || undefined,
      credential: loc.sas || settings.env[STATE_KEY_VAR] ? undefined : settings.credential?.(),
      tryTimeoutMs,
    },
    { leaseSeconds },
  );
}

/** The stores an adapter opens (what the domain's StateStores ports are satisfied by). */
export type OpenedStateStores = Awaited<ReturnType<typeof openStateStores>>;
