import {
  AnonymousCredential,
  BlobServiceClient,
  StorageSharedKeyCredential,
  type BlobClient,
  type ContainerClient,
  type StoragePipelineOptions,
} from "@azure/storage-blob";
import { StackwardenError } from "../../errors/stackwarden-error";
import type { TokenCredential } from "../../http/token-credential";
import { scrubSecrets } from "../../http/redaction";

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
  /** How long one request may take before it is retried, in ms. Default 10 000. */
  tryTimeoutMs?: number;
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
 * Opens the container (creating it when missing): by SAS, account key, or the credential chain, in
 * that order of what is given. A refusal names the role to grant (Storage Blob Data Contributor).
 */
export async function openBlobContainer(target: BlobTarget): Promise<BlobContainer> {
  const pipeline: StoragePipelineOptions = {
    retryOptions: { maxTries: 4, tryTimeoutInMs: target.tryTimeoutMs ?? 10_000, retryDelayInMs: 200, maxRetryDelayInMs: 2_000 },
    userAgentOptions: { userAgentPrefix: "stackwarden" },
  };
  const service = target.sas
    ? new BlobServiceClient(`${target.serviceUrl}?${target.sas}`, new AnonymousCredential(), pipeline)
    : target.accountKey
      ? new BlobServiceClient(target.serviceUrl, new StorageSharedKeyCredential(target.account, target.accountKey), pipeline)
      : new BlobServiceClient(target.serviceUrl, storageCredential(target.credential ?? missingCredential(target)), pipeline);
  const client = service.getContainerClient(target.container);
  const secrets = [target.sas, target.accountKey].filter((s): s is string => !!s);
  const base = `${target.serviceUrl}/${target.container}`;
  const container: BlobContainer = {
    client,
    base,
    prefix: target.prefix,
    failure: (what, e) => storageFailure(what, e, secrets, base),
  };
  try {
    await client.createIfNotExists();
  } catch (e) {
    const status = statusOf(e);
    // A SAS scoped to the container may not create it (nor need to): a container that exists is enough.
    if (status === 403 && (await client.exists().catch(() => false))) return container;
    throw container.failure(`open the state container ${base}`, e);
  }
  return container;
}

/** A blob's text and the ETag of exactly that version (one download: the two cannot come from different writes). */
export async function readBlob(blob: BlobClient): Promise<{ text: string; etag: string }> {
  const r = await blob.download();
  const chunks: Buffer[] = [];
  for await (const chunk of r.readableStreamBody as AsyncIterable<Buffer>) chunks.push(chunk);
  return { text: Buffer.concat(chunks).toString("utf8"), etag: r.etag ?? "" };
}

/** The HTTP status of a storage error (0 when no answer came). */
export function statusOf(e: unknown): number {
  return (e as { statusCode?: number }).statusCode ?? 0;
}

/** The storage service's error code (`LeaseAlreadyPresent`, `BlobAlreadyExists`, `ConditionNotMet` …). */
export function storageCodeOf(e: unknown): string {
  const err = e as { code?: string; details?: { errorCode?: string } };
  return err.details?.errorCode ?? err.code ?? "";
}

function storageFailure(what: string, e: unknown, secrets: string[], base: string): StackwardenError {
  const status = statusOf(e);
  const code = storageCodeOf(e);
  const message = scrubSecrets(((e as Error).message ?? String(e)).split("\n")[0], secrets);
  const hint =
    status === 403 || code === "AuthorizationPermissionMismatch"
      ? `; the identity needs the role Storage Blob Data Contributor on ${base} (or a SAS with read, write, create, delete and list)`
      : status === 0
        ? "; is the store reachable? (STACKWARDEN_STATE_URL)"
        : "";
  return new StackwardenError(
    "SW_STATE_UNAVAILABLE",
    `cannot ${what}: ${status ? `HTTP ${status} ` : ""}${code ? `${code}: ` : ""}${message}${hint}`,
    { cause: e },
  );
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
