import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, type Dispatcher } from "undici";
import { composeRetry, type Logger } from "../../../src/platform/http";
import type { EmulatorOptions } from "../../../src/emulator/server";
import type { SeedDocument } from "../../../src/emulator/seed";
import { armTransport, type ArmClientOptions } from "../../../src/platform/arm/arm-client";
import { BatchAiClient } from "../../../src/services/batchai/client";
import { BATCHAI_API_VERSION } from "../../../src/services/batchai/types";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

export const SUB = "00000000-0000-0000-0000-000000000000";
const FIXTURES = join(__dirname, "..", "..", "fixtures", "batchai");

/** A seed from test/fixtures/batchai, through the real seed validation. */
export function fixtureSeed(name: string): SeedDocument {
  return seedFromYaml(readFileSync(join(FIXTURES, name), "utf8"));
}

/** A logger that keeps its lines, for asserting on drift warnings. */
export function memoryLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, warn: (l) => warnings.push(l) };
}

export interface RecordedRequest {
  method: string;
  path: string;
}

/** A dispatcher that records every attempt it sends (retries included), with undici's retry interceptor on top. */
export function recordingDispatcher(): { dispatcher: Dispatcher; requests: RecordedRequest[]; close(): Promise<void> } {
  const requests: RecordedRequest[] = [];
  const agent = new Agent({ keepAliveTimeout: 1_000 });
  const recorder: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
    requests.push({ method: String(opts.method), path: String(opts.path) });
    return dispatch(opts, handler);
  };
  return { dispatcher: composeRetry(agent.compose(recorder)), requests, close: () => agent.close() };
}

export interface BatchEmulator extends TestEmulator {
  client(extra?: Partial<ArmClientOptions>): BatchAiClient;
  /** A raw ARM transport for this emulator, for requests the client would not send. */
  raw(extra?: Partial<ArmClientOptions>): ReturnType<typeof armTransport>;
}

/** Starts the in-process emulator with a seed and binds clients to it. */
export async function startBatchEmulator(seed: SeedDocument, opts: EmulatorOptions = {}): Promise<BatchEmulator> {
  const t = await startTestEmulator({ seed, ...opts });
  const base = (extra?: Partial<ArmClientOptions>): ArmClientOptions => ({
    endpoint: t.url,
    credential: t.credential,
    retry: FAST_RETRY,
    logger: memoryLogger(),
    ...extra,
  });
  return {
    ...t,
    client: (extra) => new BatchAiClient(base(extra)),
    raw: (extra) => armTransport(base(extra), BATCHAI_API_VERSION),
  };
}

/** Lower-case ids of a list, asserting nothing: the caller checks uniqueness and completeness. */
export function ids(items: readonly { id?: string }[]): string[] {
  return items.map((i) => String(i.id));
}
