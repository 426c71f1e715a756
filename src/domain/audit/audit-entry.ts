import type { ChangeAttribution } from "../changes/change-record";
/** Who made a change, as far as stackwarden can tell without keeping any secret. */
export interface AuditActor {
  /** The token's tenant, object and application ids, decoded from the JWT without verifying it. */
  tid?: string;
  oid?: string;
  appid?: string;
  /** `decoded`; `not-a-jwt` (an opaque token); or `unavailable` (no token could be had, with why). */
  claims: "decoded" | "not-a-jwt" | "unavailable";
  claimsProblem?: string;
  /** The machine that ran the command. */
  host: string;
  /**
   * The engine that made the change, with this identity's credential: `pulumi` for a plain `pulumi
   * up` (or `destroy`) whose TDE provider wrote under the stack's lock. Absent when stackwarden's own
   * command did (`apply`, a watcher, `apply --engine pulumi`: its command says so).
   */
  engine?: "pulumi";
  /** On an Azure VM (IMDS answered): its vmId and what checking the attested document found. */
  vm?: {
    vmId?: string;
    /** The attested document's PKCS#7 signature verified over its content, with our nonce in it. */
    signatureVerified: boolean;
    /** The attested document is signed by this certificate subject. */
    signer?: string;
    problem?: string;
  };
}

/** One change an apply made, or a repair remediation refused. */
export interface AuditChange {
  /** The ARM id of the resource. */
  resource: string;
  /** What the property was before (TDE status), as read. */
  before: string | null;
  /** What it is after, as read back (`null` when unknown). */
  after: string | null;
  /**
   * `converged`, `failed`, `interrupted` (shutdown between requests), `refused` (remediation would
   * break a rule), `started` (in the entry of an apply killed mid-way: the change it was about to
   * make) or, for Pulumi, its op.
   */
  outcome: string;
  /**
   * Of a change that did not converge, whether its PUT reached Azure: `sent` (accepted; the scan was
   * not awaited), `unknown` (sent, unanswered when the apply stopped), `not-sent`. Absent on others.
   */
  put?: "sent" | "unknown" | "not-sent";
  /** From the request until the scan had finished, in ms. */
  scanDurationMs?: number;
  error?: string;
  /** Why a repair was refused: the rule and its message. */
  reason?: string;
  /** Who made the change a remediation repairs, when a change record named them (absent: found by the sweep). */
  cause?: ChangeAttribution;
}

/** What an apply records; the trail adds `seq`, `prev` and `hash`. */
export interface AuditRecord {
  at: string;
  stack: string;
  /** `apply`, `apply --engine pulumi`, `watch` (auto-apply of a commit), `remediate`. */
  command: string;
  who: AuditActor;
  what: AuditChange[];
  /** The git commit of the stack file the apply acted on, when it is in a git checkout. */
  commit: string | null;
  /** How the apply ended; null in a `started` entry (see `phase`). */
  exitCode: number | null;
  /**
   * `started`: the entry of an apply killed after it began changing things and before its own
   * entry, written by the next holder of the stack's lock from the record the apply kept (its
   * changes as `started`: they may have been made). Absent on every other entry.
   */
  phase?: "started";
  /** Ties an apply that changed something to the record it kept while it ran (see `phase`). */
  applyId?: string;
  /** Anything else worth keeping (the Pulumi summary, the count of changes planned). */
  note?: string;
  /** An evidence bundle's anchor (`command: evidence`): the sha-256 of its manifest, which holds the hash of every file. */
  evidence?: { manifestSha256: string; files: number };
  /** A broken lock (`command: lock break`): whose it was. */
  brokeLock?: { pid: number; host: string; since: string; command: string };
}

/** One line of `.stackwarden/audit/<stack>.jsonl`. */
export interface AuditEntry extends AuditRecord {
  /** 1 for the first entry of the trail, then +1 per entry. */
  seq: number;
  /** sha-256 (hex) of the previous line, exactly as written; 64 zeros for the first. */
  prev: string;
  /** sha-256 (hex) of this entry serialized without `hash`. */
  hash: string;
}

/** The `prev` of the first entry. */
export const GENESIS_HASH = "0".repeat(64);
