import type { EmulatorReply, EmulatorRequest } from "../../../kit/emulator-app";
import { armError } from "../../../kit/arm-conventions";
import { Type, type Static } from "../../../kit/seed-types";
import { versionHas } from "../../../kit/version-shape";
import { tdeConfigurationId } from "../../../../platform/arm/resource-id";
import {
  SQL_RESOURCE_TYPES,
  TDE_CONFIGURATION_NAME,
  TDE_STATUSES,
  type TransparentDataEncryption,
  type TransparentDataEncryptionActivity,
  type TransparentDataEncryptionStatus,
} from "../../../../services/sql/types";
import { durationMs } from "../seed-formats";
import { apiVersionOf, dbRef, notFound, unpagedList, type DatabaseEntry } from "../sql-estate";
import { sqlResource, type DatabaseCall } from "../sql-resource";
import { scanPhase, type TdeScan } from "../tde-scan";

/**
 * A database's transparent data encryption (TDE): the configuration `current` (GET, and PUT, the one
 * resource the emulator writes) and the scan a change starts, whose progress
 * TransparentDataEncryptionActivities_ListByConfiguration reports until it ends (tde-scan.ts).
 * Seeded per database as `transparentDataEncryption: Enabled|Disabled` and `scan: {…}` (how its scans
 * behave), and for the section as `scanDurationMs`.
 */

export const DEFAULT_SCAN_DURATION_MS = 2000;
export const DEFAULT_FAIL_AT_PERCENT = 50;

const scanSeed = Type.Object(
  {
    durationMs: Type.Optional(durationMs("Optional: how long a scan takes on the emulator clock. Default: sql.scanDurationMs.")),
    outcome: Type.Optional(
      Type.Enum(["succeed", "fail", "stall"], {
        description:
          "Optional. succeed (default): the scan reaches 100%. fail: at failAtPercent it ends and the status reverts. stall: progress stops at failAtPercent for ever.",
      }),
    ),
    failAtPercent: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100, description: "Optional: where a failing scan ends or a stalled one stops. Default 50." }),
    ),
    stallMs: Type.Optional(
      durationMs(
        "Optional, for outcome stall: how long the scan stands still before it goes on, on the emulator clock. Default: for ever.",
      ),
    ),
  },
  { description: "Optional: how TDE scans of this database behave (every scan it starts)." },
);
/** How TDE scans of one database behave. */
export type SqlScanSeed = Static<typeof scanSeed>;

declare module "../sql-estate" {
  interface SqlState {
    /** How long a scan takes unless its database says otherwise. */
    scanDurationMs: number;
  }
  interface SqlDatabaseState {
    /** The status GET reports; a running scan that fails puts the old one back. */
    transparentDataEncryption: TransparentDataEncryptionStatus;
    /** How this database's scans behave (from the seed). */
    scan?: SqlScanSeed;
    /** The scan in progress, if any. */
    tdeScan?: TdeScan;
  }
}

/** The resource: its seed fragments (the section's, each database's), its state, its three routes. */
export const transparentDataEncryption = sqlResource({
  name: "transparent data encryption (its configuration and scans)",
  seed: {
    estate: {
      scanDurationMs: Type.Optional(
        durationMs(
          `Optional: how long a TDE scan takes on the emulator clock, unless a database's scan says otherwise. Default ${DEFAULT_SCAN_DURATION_MS}.`,
        ),
      ),
    },
    database: {
      transparentDataEncryption: Type.Optional(Type.Enum(TDE_STATUSES, { description: "Optional: the TDE status. Default Disabled." })),
      scan: Type.Optional(scanSeed),
    },
  },
  state: {
    estate: (f) => ({ scanDurationMs: f.scanDurationMs ?? DEFAULT_SCAN_DURATION_MS }),
    // The implicit master's TDE is Disabled for ever (its seed fragment is empty).
    database: (f) => ({ transparentDataEncryption: f.transparentDataEncryption ?? "Disabled", ...(f.scan ? { scan: { ...f.scan } } : {}) }),
  },
  routes: [
    {
      at: "database",
      method: "GET",
      path: "transparentDataEncryption/:transparentDataEncryptionName",
      operation: "TransparentDataEncryptions_Get",
      handler: (call) =>
        withConfiguration(call, () => {
          settle(call, call.req.now);
          return { status: 200, body: tdeResource(call.database) };
        }),
    },
    {
      at: "database",
      method: "PUT",
      path: "transparentDataEncryption/:transparentDataEncryptionName",
      operation: "TransparentDataEncryptions_CreateOrUpdate",
      handler: (call) => withConfiguration(call, () => putTde(call)),
    },
    {
      at: "database",
      method: "GET",
      path: "transparentDataEncryption/:transparentDataEncryptionName/operationResults",
      operation: "TransparentDataEncryptionActivities_ListByConfiguration",
      handler: (call) => withConfiguration(call, () => listActivities(call)),
    },
  ],
});

/** Only the configuration `current` exists (matched case-insensitively, as ARM names are). */
function withConfiguration({ req }: DatabaseCall, answer: () => EmulatorReply): EmulatorReply {
  const name = req.params.transparentDataEncryptionName;
  if (name.toLowerCase() === TDE_CONFIGURATION_NAME) return answer();
  return notFound(req, `${req.params.serverName}/databases/${req.params.databaseName}/transparentDataEncryption/${name}`);
}

/**
 * TransparentDataEncryptions_CreateOrUpdate. The configuration always exists, so the answer is 200
 * (the spec allows 200 and 201; 201 would claim it was created). A change starts a scan and is
 * reported at once; the same status again is a no-op; reversing a running scan is a conflict.
 */
function putTde(call: DatabaseCall): EmulatorReply {
  const { req, ctx, server, database } = call;
  const db = database.db;
  const parsed = parseTdeBody(req, tdeStatusField(apiVersionOf(req)));
  if ("reply" in parsed) return parsed.reply;
  const status = parsed.status;
  if (database.master) {
    return armError(
      400,
      "OperationNotSupportedOnMasterDatabase",
      `Transparent data encryption cannot be changed on the system database 'master' of server '${server.name}'; it is managed by Azure and always Disabled. Set it on user databases only.`,
    );
  }
  settle(call, req.now);
  if (db.transparentDataEncryption === status) return { status: 200, body: tdeResource(database) };
  if (db.tdeScan) {
    const running = db.tdeScan.to === "Enabled" ? "encryption" : "decryption";
    return armError(
      409,
      "ConflictingDatabaseOperation",
      `An ${running} scan of database '${db.name}' on server '${server.name}' is in progress; the status cannot be set to '${status}' until it has finished. Poll transparentDataEncryption/current/operationResults and try again.`,
    );
  }
  // How the scan behaves: an injected scan fault (the fault injector's `scan`) wins over the database's seed.
  const injected = req.fault?.scan;
  const scan = injected ? { ...db.scan, ...injected } : (db.scan ?? {});
  db.tdeScan = {
    from: db.transparentDataEncryption,
    to: status,
    startedAt: req.now,
    durationMs: scan.durationMs ?? ctx.state().scanDurationMs,
    outcome: scan.outcome ?? "succeed",
    failAtPercent: scan.failAtPercent ?? DEFAULT_FAIL_AT_PERCENT,
    ...(scan.stallMs !== undefined ? { stallMs: scan.stallMs } : {}),
  };
  db.transparentDataEncryption = status;
  settle(call, req.now); // a zero-length scan is over at once
  ctx.changed(...database.path);
  return { status: 200, body: tdeResource(database) };
}

/** TransparentDataEncryptionActivities_ListByConfiguration: the running scan, or nothing. */
function listActivities(call: DatabaseCall): EmulatorReply {
  const { req, server, database } = call;
  settle(call, req.now);
  const scan = database.db.tdeScan;
  if (!scan) return unpagedList([]);
  const phase = scanPhase(scan, req.now);
  if (!phase.running) return unpagedList([]); // unreachable after settle; kept for the type
  const activity: TransparentDataEncryptionActivity = {
    id: `${tdeConfigurationId(dbRef(server, database.db))}/operationResults/${TDE_CONFIGURATION_NAME}`,
    name: TDE_CONFIGURATION_NAME,
    type: SQL_RESOURCE_TYPES.transparentDataEncryptionActivity,
    location: server.location,
    properties: { status: phase.activity, percentComplete: phase.percentComplete },
  };
  return unpagedList([activity]);
}

/** Folds a finished scan into the database: its final status stays, the scan record goes. */
function settle({ ctx, database }: DatabaseCall, now: number): void {
  const db = database.db;
  if (!db.tdeScan) return;
  const phase = scanPhase(db.tdeScan, now);
  if (phase.running) return;
  db.transparentDataEncryption = phase.status;
  delete db.tdeScan;
  ctx.changed(...database.path);
}

type TdeInEveryVersion = Omit<TransparentDataEncryption, "properties"> & {
  properties: { status: TransparentDataEncryptionStatus; state: TransparentDataEncryptionStatus };
};

/**
 * The TDE configuration in every version's fields: 2014-04-01 has `location` and `properties.status`,
 * 2020-02-02-preview on `properties.state` (LogicalDatabaseTransparentDataEncryption, no location);
 * the front door keeps the request's version's own (version-shape.ts).
 */
function tdeResource({ server, db }: DatabaseEntry): TdeInEveryVersion {
  return {
    id: tdeConfigurationId(dbRef(server, db)),
    name: TDE_CONFIGURATION_NAME,
    type: SQL_RESOURCE_TYPES.transparentDataEncryption,
    location: server.location,
    properties: { status: db.transparentDataEncryption, state: db.transparentDataEncryption },
  };
}

/** The field a version's TDE PUT carries its status in: `status` (2014-04-01) or `state` (2020-02-02-preview on). */
function tdeStatusField(version: string): "status" | "state" {
  return versionHas("Microsoft.Sql", SQL_RESOURCE_TYPES.transparentDataEncryption, version, "properties.state") ? "state" : "status";
}

/** Reads `{ "properties": { "<field>": "Enabled" | "Disabled" } }`; the status matches case-insensitively, as ARM enums do. */
function parseTdeBody(
  req: EmulatorRequest,
  field: "status" | "state",
): { status: TransparentDataEncryptionStatus } | { reply: EmulatorReply } {
  const fail = (status: number, code: string, message: string) => ({ reply: armError(status, code, message) });
  if (req.body === undefined) {
    if (req.rawBody.length > 0)
      return fail(415, "UnsupportedMediaType", "The content media type is not supported. Send the body as application/json.");
    return fail(
      400,
      "InvalidRequestContent",
      `The request content is missing. Send { "properties": { "${field}": "Enabled" | "Disabled" } }.`,
    );
  }
  const body = req.body as { properties?: Record<string, unknown> } | null;
  if (!body || typeof body !== "object" || Array.isArray(body) || !body.properties || typeof body.properties !== "object") {
    return fail(
      400,
      "InvalidRequestContent",
      `The request content must be an object with 'properties', e.g. { "properties": { "${field}": "Enabled" } }.`,
    );
  }
  const raw = body.properties[field];
  if (raw === undefined || raw === null) {
    return fail(400, "MissingRequiredParameter", `The 'properties.${field}' field is required: 'Enabled' or 'Disabled'.`);
  }
  const status = typeof raw === "string" ? TDE_STATUSES.find((s) => s.toLowerCase() === raw.toLowerCase()) : undefined;
  if (!status) {
    return fail(
      400,
      "InvalidParameterValue",
      `The value ${JSON.stringify(raw)} of 'properties.${field}' is not valid; use 'Enabled' or 'Disabled'.`,
    );
  }
  return { status };
}
