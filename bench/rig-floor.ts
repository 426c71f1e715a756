import { randomUUID } from "node:crypto";
import { Agent, request } from "undici";
import { ARM_SCOPE } from "../src/platform/auth/scopes";
import { ImdsManagedIdentityCredential } from "../src/services/imds/imds-credential";
import type { ChildEmulator } from "./bench-emulator";

/** What the rig alone costs for a list of reads: a bare client replaying them against the same emulator. */
export interface RigFloor {
  /** Wall time of the replay, ms: no client can read that many through this emulator, on this machine, faster. */
  wall: number;
  /** CPU time of the bare client (this process), ms. */
  clientCpu: number;
  /** CPU time of the emulator during the replay, ms (its `cpuMicros`). */
  emulatorCpu: number;
  /** Reads replayed, and how many were not answered 200. */
  reads: number;
  notOk: number;
}

/**
 * Replays `urls` (GETs, as the measured client sent them) with a bare undici client, `concurrency`
 * at once, each with the headers an ARM client sends (bearer token from the emulator's IMDS), and
 * the emulator's throttling switched off for the replay, so the figure is the rig's own speed (the
 * emulator answering and a minimal client parsing), not the throttle's. `throttling` is what the
 * emulator is set back to afterwards (its `settings.throttling` body).
 */
export async function replayReads(
  emu: ChildEmulator,
  urls: readonly string[],
  opts: { concurrency: number; throttling: unknown },
): Promise<RigFloor> {
  const token = (await new ImdsManagedIdentityCredential({ endpoint: `${emu.url}/metadata` }).getToken(ARM_SCOPE)).token;
  await putThrottling(emu, false);
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  try {
    const e0 = (await emu.stats()).cpuMicros;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let next = 0;
    let notOk = 0;
    const worker = async () => {
      while (next < urls.length) {
        const res = await request(urls[next++], {
          dispatcher: agent,
          headers: {
            "user-agent": "stackwarden-bench node",
            accept: "application/json",
            authorization: `Bearer ${token}`,
            "x-ms-client-request-id": randomUUID(),
          },
        });
        JSON.parse(await res.body.text());
        if (res.statusCode !== 200) notOk += 1;
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const emulatorCpu = ((await emu.stats()).cpuMicros - e0) / 1000;
    return { wall, clientCpu: (cpu.user + cpu.system) / 1000, emulatorCpu, reads: urls.length, notOk };
  } finally {
    await agent.close();
    await putThrottling(emu, opts.throttling);
  }
}

async function putThrottling(emu: ChildEmulator, throttling: unknown): Promise<void> {
  const res = await fetch(`${emu.url}/_emulator/settings`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ throttling }),
  });
  if (!res.ok) throw new Error(`the emulator refused the throttling setting: ${res.status} ${await res.text()}`);
}
