import type { PipelinePolicy } from "@azure/core-rest-pipeline";
import {
  AnonymousCredential,
  ContainerClient,
  StorageSharedKeyCredential,
  type BlobClient,
  type StoragePipelineOptions,
} from "@azure/storage-blob";
import { StackwardenError } from "../../errors/stackwarden-error";
import type { TokenCredential } from "../../http/token-credential";
import { DEFAULT_STATE_TIMEOUT_MS } from "../lease-timing";
import { STATE_URL_VAR } from "../state-url";
import { StoreSilence } from "./store-silence";
import { statusOf, storageFailure, type StorageCredentialKind, type StorageFailureContext } from "./storage-failure";
import { tryDeadlinePolicy } from "./try-deadline-policy";

export { statusOf, storageCodeOf } from "./storage-failure";

/** Where and how to reach one container: what a blob state URL resolved to. */
export interface BlobTarget {
  serviceUrl: string;
  account: string;
  container: string;
  /** Names inside the container start with it (`team-a/`), or "". */
  prefix: string;
  /** A SAS from the URL (secret). */
  sas?: string;
  /** The account key (secret): STACKWARDEN_STATE_ACCOUNT_KEY. */
  accountKey?: string;
  /** The credential chain's, for Azure AD (scope https://storage.azure.com/.default). */
  credential?: TokenCredential;
  /** How long one try of a request may go unanswered before it is abandoned, in ms. Default 5 000. */
  tryTimeoutMs?: number;
  /** Where the state URL came from, for messages: `--state-url` or STACKWARDEN_STATE_URL (the default). */
  source?: string;
}

/** An opened container, with what every blob store of the state needs to name things and report errors. */
export interface BlobContainer {
  client: ContainerClient;
  /** The container's URL and the prefix, for messages (no secret). */
  base: string;
  prefix: string;
  /** Wraps a storage failure in one line naming what was done where, secrets removed. */
  failure(what: string, e: unknown): StackwardenError;
}

/**
 * Opens the container: by SAS, account key, or the credential chain, in that order of what is
 * given. Every request of it (and of each blob and lease client made from it) has a client-side
 * deadline per try. The container is probed with a list of at most one blob, which a SAS scoped to
 * the container (`sr=c`) may do; it is created only when it is missing. A refusal is
 * SW_STATE_FORBIDDEN naming what to check (the key, the SAS, or the role to grant).
 */
export async function openBlobContainer(target: BlobTarget): Promise<BlobContainer> {
  const tryMs = target.tryTimeoutMs ?? DEFAULT_STATE_TIMEOUT_MS;
  const options: StoragePipelineOptions = {
    retryOptions: { maxTries: 4, tryTimeoutInMs: tryMs, retryDelayInMs: 200, maxRetryDelayInMs: 2_000 },
    userAgentOptions: { userAgentPrefix: "stackwarden" },
  };
  const credential = target.sas
    ? new AnonymousCredential()
    : target.accountKey
      ? new StorageSharedKeyCredential(target.account, target.accountKey)
      : storageCredential(target.credential ?? missingCredential(target));
  const url = `${target.serviceUrl}/${encodeURIComponent(target.container)}${target.sas ? `?${target.sas}` : ""}`;
  const client = new DeadlinedContainerClient(url, credential, options, tryDeadlinePolicy(tryMs, new StoreSilence()));
  const base = `${target.serviceUrl}/${target.container}`;
  const kind: StorageCredentialKind = target.sas ? "sas" : target.accountKey ? "key" : "chain";
  const ctx: StorageFailureContext = {
    base,
    account: target.account,
    credential: kind,
    source: target.source ?? STATE_URL_VAR,
    tryMs,
    secrets: secretsOf(target),
  };
  const container: BlobContainer = { client, base, prefix: target.prefix, failure: (what, e) => storageFailure(what, e, ctx) };
  try {
    await client.listBlobsFlat().byPage({ maxPageSize: 1 }).next();
    return container;
  } catch (e) {
    if (statusOf(e) !== 404) throw container.failure(`open the state container ${base}`, e);
  }
  try {
    await client.createIfNotExists();
  } catch (e) {
    throw container.failure(`create the state container ${base} (it does not exist)`, e);
  }
  return container;
}

/** A blob's text and the ETag of exactly that version (one download: the two cannot come from different writes). */
export async function readBlob(blob: BlobClient): Promise<{ text: string; etag: string }> {
  // A body cut off is fetched again from where it stopped once (each try has its own deadline), not five times.
  const r = await blob.download(0, undefined, { maxRetryRequests: 1 });
  const chunks: Buffer[] = [];
  for await (const chunk of r.readableStreamBody as AsyncIterable<Buffer>) chunks.push(chunk);
  return { text: Buffer.concat(chunks).toString("utf8"), etag: r.etag ?? "" };
}

/**
 * A container client whose every try has a client-side deadline. The policy is added once to the
 * client's pipeline, which the storage client shares with every blob, block blob, append blob and
 * lease client made from this one (it keeps one pipeline per Pipeline object): all of them have it.
 */
class DeadlinedContainerClient extends ContainerClient {
  constructor(
    url: string,
    credential: StorageSharedKeyCredential | AnonymousCredential | ReturnType<typeof storageCredential>,
    options: StoragePipelineOptions,
    perTry: PipelinePolicy,
  ) {
    super(url, credential, options);
    // After signing, as core-client places its "perRetry" policies: each try is timed from when it is sent.
    this.storageClientContext.pipeline.addPolicy(perTry, { afterPhase: "Sign" });
  }
}

/** The secrets a message must never show: the SAS (whole, and its signature alone, as sent and decoded) and the key. */
function secretsOf(target: BlobTarget): string[] {
  const sig = target.sas ? new URLSearchParams(target.sas).get("sig") : null;
  const encoded = sig ? encodeURIComponent(sig) : undefined;
  return [target.sas, sig ?? undefined, encoded, target.accountKey].filter((s): s is string => !!s);
}

/** The credential chain as Azure's storage client takes it (the same getToken; bearer tokens only). */
function storageCredential(credential: TokenCredential) {
  return {
    getToken: async (scopes: string | string[], options?: Parameters<TokenCredential["getToken"]>[1]) => {
      const t = await credential.getToken(scopes, options);
      return t && { token: t.token, expiresOnTimestamp: t.expiresOnTimestamp, tokenType: "Bearer" as const };
    },
  };
}

function missingCredential(target: BlobTarget): never {
  throw new StackwardenError(
    "SW_STATE_URL_INVALID",
    `no credential for ${target.serviceUrl}/${target.container}: give a SAS in the URL, STACKWARDEN_STATE_ACCOUNT_KEY, or sign in (the credential chain)`,
  );
}
