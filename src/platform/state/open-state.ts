import type { TokenCredential } from "../http/token-credential";
import { stateDirs } from "../settings/state-dirs";
import { openFileState } from "./files/file-state";
import { StackwardenError } from "../errors/stackwarden-error";
import { LEASE_SECONDS_VAR, leaseMsOf, STATE_TIMEOUT_VAR, stateTimeoutMs } from "./lease-timing";
import { describeStateLocation, parseStateUrl, STATE_KEY_VAR, STATE_URL_VAR } from "./state-url";

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
  // Every setting is checked before the first request (and before the storage client is loaded).
  const leaseSeconds = settings.env[LEASE_SECONDS_VAR]?.trim() || undefined;
  const leaseMs = leaseMsOf(leaseSeconds);
  const tryTimeoutMs = stateTimeoutMs(leaseMs, settings.env[STATE_TIMEOUT_VAR]?.trim());
  const accountKey = loc.sas ? undefined : accountKeyOf(settings.env);
  if (!loc.sas && !accountKey && loc.serviceUrl.startsWith("http:"))
    throw new StackwardenError(
      "SW_STATE_URL_INVALID",
      `${where}: ${describeStateLocation(loc)}: a plain-http state URL needs ${STATE_KEY_VAR} (the account key; Azurite's is the published development key) or a SAS in its query; the credential chain's tokens go over https only`,
    );
  // Loaded only here: the Blob Storage SDK is ~0.2 s of start-up that a run on local state never needs.
  const { openBlobState } = await import("./blob/blob-state");
  return openBlobState(
    {
      ...loc,
      accountKey,
      credential: loc.sas || accountKey ? undefined : settings.credential?.(),
      tryTimeoutMs,
      source: where,
    },
    { leaseSeconds: leaseMs / 1000 },
  );
}

/**
 * STACKWARDEN_STATE_ACCOUNT_KEY, refused before any request when it cannot be a key: a storage
 * account key is base64 (Azure's are 64 bytes, 88 characters). The storage client would decode
 * anything, skipping what is not base64, and sign with what is left: every request would then be
 * refused as if the key were merely wrong. The value is never shown.
 */
function accountKeyOf(env: NodeJS.ProcessEnv): string | undefined {
  const key = env[STATE_KEY_VAR]?.trim();
  if (!key) return undefined;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || key.length % 4 !== 0 || Buffer.from(key, "base64").length === 0)
    throw new StackwardenError(
      "SW_SETTING_INVALID",
      `${STATE_KEY_VAR}: not an account key: a storage account key is base64 (88 characters for Azure's), and this value (${key.length} characters) is not; set it to one of the account's access keys, as the portal or \`az storage account keys list\` shows it`,
    );
  return key;
}

/** The stores an adapter opens (what the domain's StateStores ports are satisfied by). */
export type OpenedStateStores = Awaited<ReturnType<typeof openStateStores>>;
