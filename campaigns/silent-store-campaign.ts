import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { main } from "../src/interfaces/cli/main";
import type { CommandIO } from "../src/interfaces/cli/command-io";
import { verifyTrailText } from "../src/domain/audit/audit-chain";
import { loadSeedFile } from "../src/emulator/seed";
import { startEmulator } from "../src/emulator/server";
import { LOCAL_SERVICES } from "../src/emulator/services";
import { AZURITE_ACCOUNT, AZURITE_KEY } from "../src/platform/programs/azurite-server";
import { openBlobState } from "../src/platform/state/blob/blob-state";
import { campaignEstate, intBetween, prng, stateMismatches, writeCampaignFiles } from "./campaign-estate";
import { startRequestTap, type TappedRequest } from "./request-tap";
import { startStorageFaultProxy } from "./storage-fault-proxy";

/** The lease of the runs, in s (the shortest Blob Storage allows), and each storage try's deadline, in ms. */
export const SILENT_LEASE_SECONDS = 15;
export const SILENT_TRY_MS = 1_500;
/**
 * How late the campaign may see a line the apply printed, in ms: the line crosses a pipe to this
 * process and the timers fire late on a busy 2-core machine (a CI run saw 9,015 ms against a bound
 * of 9,000 when the silence began just after a renewal was answered).
 */
export const SILENT_OBSERVATION_MS = 500;
/**
 * When an apply cut off from its store must have said SW_LOCK_LOST or SW_STATE_UNAVAILABLE: half a
 * lease and one try after the silence (the worst phase: the silence begins just after a renewal was
 * answered), as the campaign sees it, in ms.
 */
export const SILENT_BOUND_MS = (SILENT_LEASE_SECONDS * 1000) / 2 + SILENT_TRY_MS + SILENT_OBSERVATION_MS;
/**
 * What its end may take beyond that, in ms: winding down what it had under way elsewhere (an ARM
 * request in flight, the scan poll it was waiting on) after its audit entry was tried once more.
 */
export const SILENT_WIND_DOWN_MS = 1_000;
const DATABASES = 24;
/** How long after its fence's renewal was answered a PUT may go out, on a busy machine, in ms. */
const FENCED_PUT_MS = 250;
/** A line that ends an apply cut off from its store. */
const CUT_OFF_LINE = /\bSW_(LOCK_LOST|STATE_UNAVAILABLE)\b/;

export interface SilentStoreRun {
  seed: number;
  ok: boolean;
  /** What went wrong, with the tail of what the applies said. */
  failure?: string;
  /** From the store going silent to the first SW_LOCK_LOST or SW_STATE_UNAVAILABLE line of the apply it was cut from, in ms. */
  lineMs?: number;
  /** From the store going silent to that apply's end, in ms. */
  endMs?: number;
  /** PUTs the cut-off apply sent before the store went silent, and after (each fenced by a renewal answered before). */
  putsBefore: number;
  putsAfter: number;
  /** From the store going silent to the cut-off apply's last PUT, in ms (negative: none after). */
  lastPutMs?: number;
  /** Databases both applies PUT (a double apply), and PUTs of the first sent after the second had begun. */
  doubleApplies: number;
  /** From the store going silent to the second apply's first PUT (it had to wait for the first's lease to lapse), in ms. */
  takeoverMs?: number;
  /** The stack's audit chain, read straight from Azurite, verifies and records every database either apply PUT. */
  chainIntact: boolean;
}

/**
 * One run of the silent-store campaign: a store that accepts and never answers. Apply A runs with
 * its state on Azurite behind a proxy; once A has sent its first PUT (and a moment more, drawn from
 * the seed) the proxy switches to "accept and hold": connections accepted, bytes swallowed, nothing
 * answered (a partition, a hung proxy, a paused Azurite). Apply B starts then on the same container,
 * reached directly, and waits for the lock. A must say SW_LOCK_LOST or SW_STATE_UNAVAILABLE within
 * half a lease and one try of the silence and end soon after (SILENT_WIND_DOWN_MS), sending no PUT
 * its fence could not confirm (none after the silence, but one whose renewal was answered just
 * before), let alone after its lease could have lapsed; B takes over once A's lease lapses, records what A left pending, and converges. No
 * database may be PUT by both, and the chain, read straight from Azurite, verifies and names every
 * database either PUT.
 */
export async function silentStoreRun(seed: number, accountUrl: string): Promise<SilentStoreRun> {
  const rand = prng(seed ^ 0x51e7);
  const dir = mkdtempSync(join(tmpdir(), `stackwarden-silent-${seed}-`));
  const dbs = campaignEstate(rand, DATABASES);
  // At least a few changes, so the store goes silent while there is something left to send.
  for (const d of dbs.slice(0, 4)) d.desired = d.live === "Enabled" ? "Disabled" : "Enabled";
  const files = writeCampaignFiles(dir, dbs, { scanDurationMs: intBetween(rand, 1_500, 3_000) });
  const emu = await startEmulator({ seed: loadSeedFile(files.seed, LOCAL_SERVICES), onError: () => undefined });
  const proxy = await startStorageFaultProxy(accountUrl, { errorRate: 0, timeoutRate: 0, renewalRefusedRate: 0, holdMs: 0 }, () => 1);
  const [tapA, tapB] = await Promise.all([startRequestTap(emu.url), startRequestTap(emu.url)]);
  const container = `silent-${seed}`;
  const said: { at: number; who: "A" | "B"; line: string }[] = [];
  const io = (who: "A" | "B", arm: string, account: string): CommandIO => ({
    out: (line) => said.push({ at: Date.now(), who, line }),
    err: (line) => said.push({ at: Date.now(), who, line }),
    isTTY: false,
    cwd: dir,
    exitCode: 0,
    env: {
      STACKWARDEN_ARM_ENDPOINT: arm,
      STACKWARDEN_IMDS_ENDPOINT: `${emu.url}/metadata`,
      STACKWARDEN_STATE_URL: `${account}/${container}`,
      STACKWARDEN_STATE_ACCOUNT_KEY: AZURITE_KEY,
      STACKWARDEN_STATE_TIMEOUT_MS: String(SILENT_TRY_MS),
      STACKWARDEN_LEASE_SECONDS: String(SILENT_LEASE_SECONDS),
    },
  });
  const tail = () =>
    said
      .slice(-30)
      .map((l) => `${l.who}: ${l.line}`)
      .join("\n");
  const run: SilentStoreRun = { seed, ok: false, putsBefore: 0, putsAfter: 0, doubleApplies: 0, chainIntact: false };
  const fail = (why: string) => ({ ...run, ok: false, failure: `${why}\n${tail()}` });
  try {
    const apply = ["apply", "--config", files.stack, "--yes", "--poll-interval", "100", "--scan-timeout", "120"];
    const a = main([...apply, "--concurrency", "2"], io("A", tapA.url, proxy.accountUrl));
    const firstPut = await firstOf(() => tapA.requests.find(isTdePut), 60_000);
    if (!firstPut) return fail("apply A sent no PUT within 60 s");
    await sleep(intBetween(rand, 0, 2_000));
    const silentAt = Date.now();
    proxy.silence(true);
    const b = main([...apply, "--concurrency", "8", "--lock-timeout", "90s"], io("B", tapB.url, accountUrl));
    const codeA = await a;
    run.endMs = Date.now() - silentAt;
    const cutOff = said.find((l) => l.who === "A" && l.at >= silentAt && CUT_OFF_LINE.test(l.line));
    run.lineMs = cutOff ? cutOff.at - silentAt : undefined;
    const codeB = await b;
    proxy.silence(false);

    const putsA = tapA.requests.filter(isTdePut);
    const putsB = tapB.requests.filter(isTdePut);
    run.putsBefore = putsA.filter((r) => r.at < silentAt).length;
    run.putsAfter = putsA.length - run.putsBefore;
    const byA = new Set(putsA.map(databaseOf));
    run.doubleApplies =
      putsB.filter((r) => byA.has(databaseOf(r))).length + (putsB.length ? putsA.filter((r) => r.at >= putsB[0].at).length : 0);
    run.takeoverMs = putsB.length ? putsB[0].at - silentAt : undefined;
    const lastA = putsA.at(-1);
    run.lastPutMs = lastA ? lastA.at - silentAt : undefined;
    if (codeA !== 1) return fail(`apply A, cut off from its store, exited ${codeA} (expected 1)`);
    if (!cutOff) return fail("apply A ended without a SW_LOCK_LOST or SW_STATE_UNAVAILABLE line after the store went silent");
    if (cutOff.at - silentAt > SILENT_BOUND_MS)
      return fail(
        `apply A said ${CUT_OFF_LINE.exec(cutOff.line)![0]} ${cutOff.at - silentAt} ms after the store went silent: past ${SILENT_BOUND_MS} ms`,
      );
    if (run.endMs > SILENT_BOUND_MS + SILENT_WIND_DOWN_MS)
      return fail(`apply A ended ${run.endMs} ms after the store went silent: past ${SILENT_BOUND_MS + SILENT_WIND_DOWN_MS} ms (a hang)`);
    // Every PUT is fenced by a renewal that worked right before it: after the silence, only one
    // whose renewal was answered just before can go out, at once.
    if (lastA && lastA.at - silentAt > FENCED_PUT_MS)
      return fail(`apply A sent a PUT ${lastA.at - silentAt} ms after the store went silent: no renewal could have confirmed it`);
    if (run.doubleApplies) return fail(`${run.doubleApplies} PUT(s) of a database the other apply also PUT (a double apply)`);
    if (codeB !== 0) return fail(`apply B, on the answering store, exited ${codeB}`);

    const plan = await main(["plan", "--config", files.stack], io("B", emu.url, accountUrl));
    if (plan !== 0) return fail(`plan exited ${plan} after apply B`);
    const live = stateMismatches(emu.store.state, dbs);
    if (live.length) return fail(`the emulator's state differs from the stack: ${live.slice(0, 5).join("; ")}`);
    const trail = await chainProblem(accountUrl, container, [...putsA, ...putsB].map(databaseOf));
    run.chainIntact = !trail;
    if (trail) return fail(trail);
    return { ...run, ok: true };
  } catch (e) {
    return fail(`the run failed: ${(e as Error).stack ?? String(e)}`);
  } finally {
    proxy.silence(false);
    await Promise.all([emu.close(), proxy.close(), tapA.close(), tapB.close()]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SilentStoreReport {
  runs: SilentStoreRun[];
  ms: number;
}

/** Runs the campaign: `runs` runs from `seed`, `parallel` at a time, each in its own container. */
export async function runSilentStoreCampaign(opts: {
  seed: number;
  runs: number;
  parallel?: number;
  /** Azurite's account URL. */
  storage: string;
  onRun?: (r: SilentStoreRun, done: number) => void;
}): Promise<SilentStoreReport> {
  const started = Date.now();
  const runs: SilentStoreRun[] = [];
  let next = 0;
  const worker = async () => {
    while (next < opts.runs) {
      const r = await silentStoreRun(opts.seed + next++, opts.storage);
      runs.push(r);
      opts.onRun?.(r, runs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.parallel ?? 3, opts.runs)) }, worker));
  runs.sort((x, y) => x.seed - y.seed);
  return { runs, ms: Date.now() - started };
}

/** The campaign's summary: the figures against the bound, a few lines. */
export function summarizeSilentStore(report: SilentStoreReport): string {
  const ok = report.runs.filter((r) => r.ok);
  const figures = (pick: (r: SilentStoreRun) => number | undefined) => {
    const v = report.runs.map(pick).filter((x): x is number => x !== undefined);
    return v.length ? `${Math.min(...v)}..${Math.max(...v)} ms` : "none";
  };
  const late = report.runs.filter((r) => r.lineMs === undefined || r.lineMs > SILENT_BOUND_MS).length;
  const hangs = report.runs.filter((r) => r.endMs === undefined || r.endMs > SILENT_BOUND_MS + SILENT_WIND_DOWN_MS).length;
  return [
    `silent store: ${ok.length}/${report.runs.length} runs held in ${(report.ms / 1000).toFixed(1)} s (lease ${SILENT_LEASE_SECONDS} s, a try ${SILENT_TRY_MS} ms: lease/2 + one try + ${SILENT_OBSERVATION_MS} ms seen late = ${SILENT_BOUND_MS} ms)`,
    `  from silence to the SW_LOCK_LOST/SW_STATE_UNAVAILABLE line: ${figures((r) => r.lineMs)} (${late} past ${SILENT_BOUND_MS} ms); to the apply's end: ${figures((r) => r.endMs)} (${hangs} past ${SILENT_BOUND_MS + SILENT_WIND_DOWN_MS} ms)`,
    `  PUTs after the silence: ${report.runs.reduce((n, r) => n + r.putsAfter, 0)} (of ${report.runs.reduce((n, r) => n + r.putsBefore + r.putsAfter, 0)}; the last ${figures((r) => r.lastPutMs)} after it); double applies: ${report.runs.reduce((n, r) => n + r.doubleApplies, 0)}; takeover after ${figures((r) => r.takeoverMs)}; chains intact: ${report.runs.filter((r) => r.chainIntact).length}/${report.runs.length}`,
    ...report.runs.filter((r) => !r.ok).map((r) => `  seed ${r.seed} failed: ${r.failure}`),
  ].join("\n");
}

const isTdePut = (r: TappedRequest) => r.method === "PUT" && /\/transparentDataEncryption\//i.test(r.path);
const databaseOf = (r: TappedRequest) => /\/servers\/([^/]+)\/databases\/([^/]+)\//i.exec(r.path)?.slice(1).join("/") ?? r.path;

/** Polls `pick` until it gives something (or `ms` pass). */
async function firstOf<T>(pick: () => T | undefined, ms: number): Promise<T | undefined> {
  const until = Date.now() + ms;
  for (;;) {
    const v = pick();
    if (v !== undefined || Date.now() > until) return v;
    await sleep(20);
  }
}

/** What is wrong with the stack's chain, read straight from Azurite: undefined when it verifies and names every database PUT. */
async function chainProblem(accountUrl: string, container: string, databases: string[]): Promise<string | undefined> {
  const direct = await openBlobState({ serviceUrl: accountUrl, account: AZURITE_ACCOUNT, container, prefix: "", accountKey: AZURITE_KEY });
  const text = await direct.audit.read("chaos");
  if (!text) return "the shared audit trail is empty";
  const verdict = verifyTrailText(text);
  if (!verdict.intact) return `the shared audit trail does not verify: ${verdict.problems.map((p) => p.message).join("; ")}`;
  const recorded = new Set(
    text
      .trimEnd()
      .split("\n")
      .flatMap((l) => (JSON.parse(l) as { what: { resource: string }[] }).what.map((w) => w.resource.toLowerCase())),
  );
  const missing = [...new Set(databases)].filter(
    (d) => ![...recorded].some((r) => r.includes(`/servers/${d.split("/")[0]}/databases/${d.split("/")[1]}`.toLowerCase())),
  );
  return missing.length ? `the chain records no change of ${missing.join(", ")}, though it was PUT` : undefined;
}
