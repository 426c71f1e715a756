import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { startEmulator } from "../../../emulator/server";
import { loadSeedFile } from "../../../emulator/seed";
import { LOCAL_SERVICES } from "../../../emulator/services";
import type { FaultRule } from "../../../emulator/fault-injector";
import { DEFAULT_ESTATE } from "../../../emulator/default-estate";
import { choiceOption, intOption, positiveNumber, rateOption } from "../option-parsers";
import { UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";
import { onStopRequest } from "../stop-request";
import { EMULATOR_FLAG, EMULATOR_VAR, emulatorOnlyEnvironment } from "../../../platform/settings/emulator-settings";
import { AZURITE_KEY, startAzurite, type AzuriteServer } from "../../../platform/programs/azurite-server";
import { STATE_KEY_VAR, STATE_URL_VAR } from "../../../platform/state/state-url";
import { databaseLabel, databaseRefOf } from "../../../platform/arm/resource-id";
import { TDE_STATUSES, type TransparentDataEncryptionStatus } from "../../../services/sql/types";
import { changeTdeOutOfBand, type DatabaseAddress, type OutOfBandChange } from "../../../usecases/out-of-band-change";
import { emulatorOnlyClients } from "../service-clients";
import { emulatorUserToken, USER_PRINCIPAL_NAME } from "../emulator-user-token";
import { newClientSet } from "../../../clients/client-set";

interface EmulatorFlags {
  host: string;
  port: number;
  seed?: string;
  state?: string;
  pageSize?: number;
  tokenTtl?: number;
  latency?: number;
  faultSeed?: number;
  fault429?: number;
  fault5xx?: number;
  faultDrop?: number;
  retryAfterMs?: number;
  throttle?: boolean;
  throttleRefillScale?: number;
  storage?: boolean;
  storagePort?: number;
}

export function registerEmulator(program: Command, io: CommandIO): void {
  const emulator = program
    .command("emulator")
    .description(
      "serve every seeded API locally (ARM under /, IMDS under /metadata); the first stdout line is the base URL (runs until SIGINT or SIGTERM, then exits 0; 1 when it cannot start)",
    )
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <n>", "port to listen on (0 picks a free one)", intOption(0, 65535), 0)
    .option("--seed <file>", "seed YAML describing the estate (default: stacks/dev.estate.yaml)")
    .option("--state <dir>", "persist state in this directory; state found there wins over the seed")
    .option("--page-size <n>", "items per page of ARM lists that page", intOption(1, 1000))
    .option("--token-ttl <seconds>", "lifetime of the tokens IMDS issues", intOption(1))
    .option("--latency <ms>", "latency added to every request", intOption(0, 600_000))
    .option("--fault-seed <n>", "seed of the fault decisions", intOption(0))
    .option("--fault-429 <rate>", "share of requests answered 429 with Retry-After", rateOption)
    .option("--fault-5xx <rate>", "share of requests answered 503", rateOption)
    .option("--fault-drop <rate>", "share of requests whose connection is dropped", rateOption)
    .option("--retry-after-ms <ms>", "delay asked for by injected 429s (default 1000)", intOption(0))
    .option(
      "--throttle",
      "throttle ARM requests as Resource Manager does: token buckets per subscription and principal (reads 250, +25/s; writes and deletes 200, +10/s), remaining-budget headers, 429 with Retry-After",
    )
    .option(
      "--throttle-refill-scale <x>",
      "with --throttle: multiply every refill rate by x (rehearse at scale in less time)",
      positiveNumber,
    )
    .option(
      "--storage",
      "also start Azurite (Azure Storage's emulator) for shared state: locks, audit trails, watcher replicas (in memory; under DIR/azurite with --state)",
    )
    .option("--storage-port <n>", "with --storage: Azurite's Blob port (0 picks a free one)", intOption(0, 65535), 0)
    .action(async (flags: EmulatorFlags) => {
      // Listen for SIGINT/SIGTERM before anything is printed: a signal sent the moment the URL
      // appears must stop the emulator cleanly (exit 0, state written), not kill it by signal.
      const stopped = stopLatch(io.env);
      const seedPath = flags.seed ?? (existsSync(DEFAULT_ESTATE) ? DEFAULT_ESTATE : undefined);
      const seed = seedPath ? loadSeedFile(seedPath, LOCAL_SERVICES) : {};
      const rules: FaultRule[] = [];
      if (flags.fault429) rules.push({ status: 429, rate: flags.fault429, retryAfterMs: flags.retryAfterMs ?? 1000 });
      if (flags.fault5xx) rules.push({ status: 503, rate: flags.fault5xx });
      if (flags.faultDrop) rules.push({ drop: true, rate: flags.faultDrop });
      const emu = await listenOrSay(flags, () =>
        startEmulator({
          host: flags.host,
          port: flags.port,
          seed,
          stateDir: flags.state,
          settings: {
            pageSize: flags.pageSize,
            tokenTtlSeconds: flags.tokenTtl,
            throttling:
              flags.throttle || flags.throttleRefillScale
                ? {
                    ...(typeof seed.emulator?.throttling === "object" ? seed.emulator.throttling : {}),
                    refillScale: flags.throttleRefillScale,
                  }
                : undefined,
          },
          faults: {
            latencyMs: flags.latency,
            seed: flags.faultSeed,
            rules: rules.length ? [...(seed.faults?.rules ?? []), ...rules] : undefined,
          },
        }),
      );
      io.out(emu.url);
      const storage = flags.storage ? await startStorage(flags, emu) : undefined;
      io.err(
        `stackwarden emulator: serving ${seedPath ? `the estate in ${seedPath}` : "an empty estate"}${flags.state ? `, state in ${flags.state}` : ""}; ARM at ${emu.url}/, IMDS at ${emu.url}/metadata, geocoding at ${emu.url}/geocoding, binary analysis at ${emu.url}/binary-analysis/v1, the issuers at ${emu.url}/apisetu. Stop with Ctrl-C. Point the CLI at it with:`,
      );
      io.err(`export ${EMULATOR_VAR}=${emu.url}`);
      if (storage) {
        io.err(
          `stackwarden emulator: Azurite serves Blob Storage at ${storage.accountUrl}; share state (locks, audit, watcher replicas) with:`,
        );
        io.err(`export ${STATE_URL_VAR}=${storage.stateUrl("stackwarden")}`);
        io.err(`export ${STATE_KEY_VAR}=${AZURITE_KEY}`);
      }
      // Until told to stop: SIGINT, SIGTERM, or the process that started it gone (npx's shell).
      const reason = await stopped.reason;
      // Closing flushes the state journal (--state): nothing acknowledged is lost.
      await Promise.all([emu.close(), storage?.stop()]);
      io.err(`stackwarden emulator: stopped (${reason})`);
    });
  registerChange(emulator, io);
}

/**
 * The first stop request (SIGINT, SIGTERM, the parent gone), remembered from the moment it is
 * created: handlers stay registered until then, so a request during start-up waits for the
 * emulator to be up and is then honoured like any other.
 */
function stopLatch(env: NodeJS.ProcessEnv): { reason: Promise<string> } {
  const reason = new Promise<string>((resolve) => {
    const dispose = onStopRequest((why) => {
      dispose();
      resolve(why);
    }, env);
  });
  return { reason };
}

/**
 * Starts the emulator; an address it cannot listen on (a host name that does not resolve, a port it
 * may not take) is a bad --host or --port, said in one line. A port in use keeps its own code.
 */
async function listenOrSay<T>(flags: Pick<EmulatorFlags, "host" | "port">, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "EADDRINUSE" || (err.syscall !== "listen" && err.syscall !== "getaddrinfo")) throw e;
    throw new UsageError(`cannot listen on --host ${flags.host} --port ${flags.port}: ${err.message}`);
  }
}

/** Azurite beside the emulator (`--storage`); a failure to start it stops the emulator too. */
async function startStorage(flags: EmulatorFlags, emu: { close(): Promise<void> }): Promise<AzuriteServer> {
  const location = flags.state ? join(flags.state, "azurite") : undefined;
  if (location) mkdirSync(location, { recursive: true });
  try {
    return await startAzurite({ host: flags.host, port: flags.storagePort, location });
  } catch (e) {
    await emu.close();
    throw e;
  }
}

interface ChangeFlags {
  database: DatabaseAddress;
  tde: TransparentDataEncryptionStatus;
  subscription?: string;
  as?: string;
}

/**
 * `emulator change`: a change made out of band, as a person in the portal makes it, on a running
 * emulator only (STACKWARDEN_EMULATOR or --emulator): a real PUT through its Resource Manager with a
 * token from its IMDS (the machine's managed identity), or with `--as UPN` a user's token from the
 * emulator's user-token facility, so the change records name that person; plan, drift and watch then
 * meet drift they did not make.
 */
function registerChange(emulator: Command, io: CommandIO): void {
  emulator
    .command("change")
    .description(
      "change a database's TDE status on a running emulator as someone in the portal would: a PUT through its Resource Manager with a token from its IMDS (STACKWARDEN_EMULATOR or --emulator); plan and drift then show the drift (exit 0, 1 error)",
    )
    .requiredOption(
      "--database <rg/server/database>",
      "the database: RESOURCE_GROUP/SERVER/DATABASE (e.g. rg-data/sql-prod-1/orders) or its resource id",
      databaseOption,
    )
    .requiredOption("--tde <status>", "the TDE status to set: Enabled or Disabled", choiceOption(TDE_STATUSES))
    .option("--subscription <id>", "the database's subscription (default: the one the emulator's IMDS names for its machine)")
    .option(
      "--as <upn>",
      "write as this person, a user principal name such as alice@contoso.com: a user token from the emulator's user-token facility, so the Activity Log's caller and Event Grid's claims name them (default: the emulator IMDS's managed identity)",
      upnOption,
    )
    .option(`${EMULATOR_FLAG} <url>`, `the running emulator's URL (sets ${EMULATOR_VAR})`)
    .action(async (flags: ChangeFlags) => {
      const emulator = await emulatorOnlyClients(io, "emulator change");
      const { url } = emulator;
      const clients = flags.as
        ? newClientSet({ ...emulatorOnlyEnvironment(io.env, url), AZURE_ACCESS_TOKEN: await emulatorUserToken(url, flags.as) })
        : emulator.clients;
      const database = flags.subscription ? { ...flags.database, subscriptionId: flags.subscription } : flags.database;
      io.out(changeLine(await changeTdeOutOfBand({ clients, database, status: flags.tde }), url, flags.as));
    });
}

/** `--database`: RESOURCE_GROUP/SERVER/DATABASE, or a database's resource id (which names its subscription too). */
function databaseOption(value: string): DatabaseAddress {
  const v = value.trim();
  const ref = v.startsWith("/") ? databaseRefOf(v) : undefined;
  if (ref) return ref;
  const parts = v.split("/");
  if (!v.startsWith("/") && parts.length === 3 && parts.every((p) => p.trim())) {
    return { resourceGroup: parts[0], server: parts[1], database: parts[2] };
  }
  throw new InvalidArgumentError(
    `expected RESOURCE_GROUP/SERVER/DATABASE (e.g. rg-data/sql-prod-1/orders) or a database's resource id, got "${value}"`,
  );
}

/** `--as`: a user principal name (alice@contoso.com), as the emulator's user tokens carry it. */
function upnOption(value: string): string {
  const v = value.trim();
  if (USER_PRINCIPAL_NAME.test(v)) return v;
  throw new InvalidArgumentError(`expected a user principal name such as alice@contoso.com, got "${value}"`);
}

/** The one line `emulator change` prints: what it changed, how, as whom, and where. */
function changeLine(c: OutOfBandChange, url: string, as?: string): string {
  const db = databaseLabel(c.database);
  if (!c.changed) return `unchanged ${db}: its TDE is already ${c.after} (nothing written to the emulator at ${url})`;
  const scan = c.after === "Enabled" ? "an encryption" : "a decryption";
  const who = as ? ` as ${as}` : "";
  return `changed ${db}: TDE ${c.before ?? "(none)"} -> ${c.after}, by a PUT of transparentDataEncryption/current through the Resource Manager of the emulator at ${url}${who}; ${scan} scan runs`;
}
