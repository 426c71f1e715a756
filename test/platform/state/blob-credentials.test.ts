import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandIO } from "../../../src/interfaces/cli/command-io";
import { main } from "../../../src/interfaces/cli/main";
import { errorCodeOf } from "../../../src/platform/errors/error-code-of";
import { ERROR_CODES } from "../../../src/platform/errors/error-codes";
import { storageFailure, type StorageFailureContext } from "../../../src/platform/state/blob/storage-failure";
import { openStateStores, type StateSettings } from "../../../src/platform/state/open-state";
import { AZURITE_KEY, startTestAzurite } from "../../helpers/azurite";
import { deadUrl } from "../../helpers/dead-url";
import { accountSas, containerSas, createContainer, freshContainer } from "./azurite-sas";

/**
 * Opening the state on Blob Storage with each kind of credential (account key, container SAS,
 * account SAS, the credential chain) and each way one can be wrong: a refusal is SW_STATE_FORBIDDEN
 * (not retryable) naming what to check for the credential in use; a key that cannot be a key, or
 * plain http with nothing to sign with, is refused before any request; messages name the flag or
 * the variable the URL came from; no SAS or key is ever shown.
 */
let azurite: Awaited<ReturnType<typeof startTestAzurite>>;
/** A server that counts connections and answers none: proof that nothing was sent. */
let listener: { server: Server; connections: number; url: string };
beforeAll(async () => {
  azurite = await startTestAzurite();
  const server = createServer((s) => {
    listener.connections += 1;
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  listener = { server, connections: 0, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/devstoreaccount1/state` };
});
afterAll(async () => {
  await azurite?.stop();
  await new Promise((resolve) => listener?.server.close(resolve));
});

/** Opens the state and exercises it (a lock, an audit entry, a document); resolves to what it opened. */
async function openAndUse(settings: Omit<StateSettings, "cwd">) {
  const state = await openStateStores({ cwd: process.cwd(), ...settings });
  if (!("leaseMs" in state.locks)) throw new Error("not Blob Storage");
  const lock = await state.locks.acquire({
    name: "dev",
    holder: { pid: 1, host: "h", since: new Date().toISOString(), command: "apply", stack: "dev" },
    timeoutMs: 0,
  });
  if (!lock.held) throw new Error("lock not taken");
  await lock.lease.check();
  expect(await state.audit.append("dev", 1, '{"seq":1}', undefined)).toBe("appended");
  await state.probes.put("dev.json", "{}");
  await lock.lease.release();
  return state;
}

/** What opening the state throws: its code, message, and whether the catalogue says retrying helps. */
async function refusalOf(settings: Omit<StateSettings, "cwd">) {
  try {
    await openAndUse(settings);
  } catch (e) {
    const code = errorCodeOf(e);
    return { code, message: (e as Error).message, retry: ERROR_CODES[code].retry };
  }
  throw new Error("the state opened");
}

describe("a SAS in the state URL", () => {
  it("scoped to the container (sr=c, sp=racwdl): opens and works, though it may neither create nor read the container's properties", async () => {
    const container = freshContainer();
    await createContainer(azurite.accountUrl, container);
    await openAndUse({ env: { STACKWARDEN_STATE_URL: `${azurite.stateUrl(container)}?${containerSas(container)}` } });
  });

  it("for the account: opens and creates a missing container; one without create opens an existing container", async () => {
    const container = freshContainer();
    await openAndUse({ env: { STACKWARDEN_STATE_URL: `${azurite.stateUrl(container)}?${accountSas()}` } });
    const other = freshContainer();
    await createContainer(azurite.accountUrl, other);
    await openAndUse({ env: { STACKWARDEN_STATE_URL: `${azurite.stateUrl(other)}?${accountSas("rawdl")}` } });
  });

  it("refused (signed for another container): SW_STATE_FORBIDDEN naming the SAS and --state-url, never showing it", async () => {
    const container = freshContainer();
    await createContainer(azurite.accountUrl, container);
    const sas = containerSas("another-container");
    const r = await refusalOf({ env: {}, url: `${azurite.stateUrl(container)}?${sas}` });
    expect(r).toMatchObject({ code: "SW_STATE_FORBIDDEN", retry: "person" });
    expect(r.message).toContain("check the SAS in the state URL (--state-url)");
    expect(r.message).not.toContain("Storage Blob Data Contributor");
    expect(r.message).not.toContain(new URLSearchParams(sas).get("sig")!);
    expect(r.message).not.toContain(encodeURIComponent(new URLSearchParams(sas).get("sig")!));
  });

  it("on a container that does not exist and may not be created by it: SW_STATE_FORBIDDEN saying so", async () => {
    const container = freshContainer();
    const r = await refusalOf({ env: { STACKWARDEN_STATE_URL: `${azurite.stateUrl(container)}?${containerSas(container)}` } });
    expect(r.code).toBe("SW_STATE_FORBIDDEN");
    expect(r.message).toMatch(/cannot create the state container \S+ \(it does not exist\): HTTP 403 .*\(STACKWARDEN_STATE_URL\)/);
  });
});

describe("an account key", () => {
  const key = (value: string, url = azurite.freshStateUrl()) => ({ STACKWARDEN_STATE_URL: url, STACKWARDEN_STATE_ACCOUNT_KEY: value });

  it("that is wrong: SW_STATE_FORBIDDEN (not retryable) naming STACKWARDEN_STATE_ACCOUNT_KEY, not a role", async () => {
    const wrong = Buffer.from("not the key of devstoreaccount1, but base64 all the same").toString("base64");
    const r = await refusalOf({ env: key(wrong) });
    expect(r).toMatchObject({ code: "SW_STATE_FORBIDDEN", retry: "person" });
    expect(r.message).toMatch(
      /HTTP 403 .*check STACKWARDEN_STATE_ACCOUNT_KEY: it must be a current access key of the account devstoreaccount1/,
    );
    expect(r.message).not.toContain("Storage Blob Data Contributor");
    expect(r.message).not.toContain(wrong);
  });

  it.each([
    ["not base64", "this is not a key!"],
    ["cut short", "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMG"],
    ["nothing but padding", "===="],
  ])("%s: refused before any request (SW_SETTING_INVALID naming STACKWARDEN_STATE_ACCOUNT_KEY), never shown", async (_, value) => {
    const before = listener.connections;
    const r = await refusalOf({ env: key(value, listener.url) });
    expect(r).toMatchObject({ code: "SW_SETTING_INVALID", retry: "person" });
    expect(r.message).toMatch(/^STACKWARDEN_STATE_ACCOUNT_KEY: not an account key/);
    expect(r.message).not.toContain(value);
    expect(listener.connections).toBe(before);
  });

  it("works as Azurite's published key", async () => {
    await openAndUse({ env: key(AZURITE_KEY) });
  });
});

describe("plain http with neither key nor SAS", () => {
  it("is refused before any request, saying a key or SAS is needed, without the SDK's bearer-token text", async () => {
    const before = listener.connections;
    const chain = () => ({ getToken: () => Promise.resolve({ token: "t", expiresOnTimestamp: Date.now() + 3_600_000 }) });
    for (const [settings, where] of [
      [{ env: { STACKWARDEN_STATE_URL: listener.url }, credential: chain }, "STACKWARDEN_STATE_URL"],
      [{ env: {}, url: listener.url, credential: chain }, "--state-url"],
    ] as const) {
      const r = await refusalOf(settings);
      expect(r).toMatchObject({ code: "SW_STATE_URL_INVALID", retry: "person" });
      expect(r.message).toBe(
        `${where}: ${listener.url}/: a plain-http state URL needs STACKWARDEN_STATE_ACCOUNT_KEY (the account key; Azurite's is the published development key) or a SAS in its query; the credential chain's tokens go over https only`,
      );
      expect(r.message).not.toMatch(/Bearer|non-TLS/);
    }
    expect(listener.connections).toBe(before);
  });
});

describe("messages name the flag or the variable that was used", () => {
  it("a store that cannot be reached: --state-url when the flag gave the URL, STACKWARDEN_STATE_URL when the variable did", async () => {
    const url = `${await deadUrl()}/devstoreaccount1/state`;
    const flag = await refusalOf({ env: { STACKWARDEN_STATE_ACCOUNT_KEY: AZURITE_KEY }, url });
    expect(flag).toMatchObject({ code: "SW_STATE_UNAVAILABLE", retry: "transient" });
    expect(flag.message).toMatch(/is the store reachable\? \(--state-url\)$/);
    const variable = await refusalOf({ env: { STACKWARDEN_STATE_URL: url, STACKWARDEN_STATE_ACCOUNT_KEY: AZURITE_KEY } });
    expect(variable.message).toMatch(/is the store reachable\? \(STACKWARDEN_STATE_URL\)$/);
  });

  it("the CLI ends with one SW_STATE_FORBIDDEN line for a wrong key, exit 1", async () => {
    const lines: string[] = [];
    const io: CommandIO = {
      out: (l) => lines.push(l),
      err: (l) => lines.push(l),
      isTTY: false,
      cwd: process.cwd(),
      env: { STACKWARDEN_STATE_ACCOUNT_KEY: Buffer.from("wrong").toString("base64") },
      exitCode: 0,
    };
    expect(await main(["lock", "status", "--stack", "dev", "--state-url", azurite.freshStateUrl()], io)).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^stackwarden( lock)?: SW_STATE_FORBIDDEN: cannot open the state container .*check STACKWARDEN_STATE_ACCOUNT_KEY/,
    );
  });
});

describe("the advice for each kind of credential", () => {
  const ctx = (credential: StorageFailureContext["credential"]): StorageFailureContext => ({
    base: "https://acct.blob.core.windows.net/state",
    account: "acct",
    credential,
    source: "--state-url",
    tryMs: 5000,
    secrets: [],
  });
  const refused = Object.assign(new Error("This request is not authorized to perform this operation using this permission."), {
    statusCode: 403,
    details: { errorCode: "AuthorizationPermissionMismatch" },
  });

  it("names the role for the credential chain, the key variable for a key, the SAS for a SAS", () => {
    expect(storageFailure("list x", refused, ctx("chain")).message).toContain(
      "the identity needs the role Storage Blob Data Contributor on https://acct.blob.core.windows.net/state",
    );
    expect(storageFailure("list x", refused, ctx("key")).message).toContain("check STACKWARDEN_STATE_ACCOUNT_KEY");
    expect(storageFailure("list x", refused, ctx("sas")).message).toContain("check the SAS in the state URL (--state-url)");
    for (const kind of ["chain", "key", "sas"] as const)
      expect(errorCodeOf(storageFailure("list x", refused, ctx(kind)))).toBe("SW_STATE_FORBIDDEN");
  });
});
