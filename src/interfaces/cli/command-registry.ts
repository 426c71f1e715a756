import type { Command } from "commander";
import type { CommandIO } from "./command-io";

/** Declares a command fully on the program: its arguments, options and action (what a command module exports). */
export type RegisterCommand = (program: Command, io: CommandIO) => void;

/**
 * A command as the program lists it, and how to load it. Listing costs nothing: `--help` and
 * `--version` load no command module. A command's module (and whatever it imports: the Automation
 * API, the emulator, ajv, yaml ...) loads only when that command runs or its own `--help` is asked for.
 *
 * To add a command:
 * 1. write `src/interfaces/cli/commands/<name>-command.ts` exporting `register<Name>(program, io)`, which declares
 *    the command (`program.command("<name>")`), its options and its action, as the others do;
 * 2. add one entry below with the same name and description (test/interfaces/cli/command-registry.test.ts
 *    loads every entry and checks that they match its declaration).
 * Import nothing heavy here or in main.ts: `stackwarden --version` must stay within 2x `node -e 0`
 * (bench/startup.bench.ts).
 */
export interface CommandEntry {
  /** The command's name, as typed (`plan`, `rules`). */
  readonly name: string;
  /** The one-line description `--help` lists; the same text as the command's own declaration. */
  readonly description: string;
  /** What follows the name in the listing, as commander would show it (`[options] [files...]`; `""` for none). Default `[options]`. */
  readonly usage?: string;
  /** Loads the command's module and returns its register function. */
  load(): Promise<RegisterCommand>;
}

/** Every command, in the order `--help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "init",
    description:
      "start a repository of your own: a commented starter stack, the three GitHub workflows that use stackwarden's by reference, and .stackwarden/ in .gitignore (exit 0; 1 when a file exists, unless --force)",
    load: async () => (await import("./commands/init-command")).registerInit,
  },
  {
    name: "plan",
    description:
      "compare desired TDE states with live ones and list the changes apply would make (exit 0 none, 2 pending, 1 error: a database that could not be read, the others still planned)",
    load: async () => (await import("./commands/plan-command")).registerPlan,
  },
  {
    name: "apply",
    description:
      "make the planned TDE changes and wait for each encryption or decryption scan to finish (exit 0 converged, 1 error; with --probe, 4 converged but a probe failed)",
    load: async () => (await import("./commands/apply-command")).registerApply,
  },
  {
    name: "drift",
    description:
      "list live state that differs from the stack and the findings of the rules declared as drift, such as tier-advisor disagreements and key custody (exit 0 none or advisory only, 2 drift, 1 error: also a database that could not be read, the others still compared)",
    load: async () => (await import("./commands/drift-command")).registerDrift,
  },
  {
    name: "check",
    description:
      "run every compliance rule against live state (exit 0 no mandatory violation, 3 at least one, 1 error: also an artifact not scanned or a database that could not be read, the others still judged)",
    load: async () => (await import("./commands/check-command")).registerCheck,
  },
  {
    name: "discover",
    description:
      "list the databases of the stack's stackwarden:scope that its file does not list; with --write, add them to stackwarden:databases, keeping the file's comments and order (exit 0, 1 error: also a list of the scope that could not be read)",
    load: async () => (await import("./commands/discover-command")).registerDiscover,
  },
  {
    name: "inventory",
    description:
      "read every data source the stack names: Batch AI (operations, usages, workspaces, clusters, experiments, file servers, jobs), SQL (advisors, pool activity, TDE, scans, TDE protectors, server keys) and Key Vault (the vaults and keys of customer-managed TDE protectors) (exit 0, 1 when a read failed: everything else is still printed)",
    load: async () => (await import("./commands/inventory-command")).registerInventory,
  },
  {
    name: "probe",
    description:
      "issue a document from each certificate issuer the stack's stackwarden:probes name, and check it (exit 0 all pass, 4 a probe failed, 1 error)",
    load: async () => (await import("./commands/probe-command")).registerProbe,
  },
  {
    name: "emulator",
    description:
      "serve every seeded API locally (ARM under /, IMDS under /metadata); the first stdout line is the base URL (runs until SIGINT or SIGTERM, then exits 0; 1 when it cannot start)",
    load: async () => (await import("./commands/emulator-command")).registerEmulator,
  },
  {
    name: "start",
    description:
      "run the main job (plan, apply, plan, probe, check) for a stack against the embedded emulator (exit 0; 1 not converged or an error; 3 a mandatory violation; else 4 a probe failed)",
    load: async () => (await import("./commands/start-command")).registerStart,
  },
  {
    name: "whoami",
    description:
      "show which credential of the chain answered and whom its ARM token names, and what IMDS says of this machine and its managed identity (STACKWARDEN_IMDS_ENDPOINT, AZURE_CLIENT_ID) (exit 0, 1 when no credential works: one line naming what was tried)",
    load: async () => (await import("./commands/whoami-command")).registerWhoami,
  },
  {
    name: "scan",
    description:
      "run the binary analysis gate on files: unpack when packed, apply the signature rules (STACKWARDEN_BINARY_ANALYSIS_ENDPOINT); without FILEs, --stack scans the stack's stackwarden:artifacts (exit 0 clean, 3 a match, 1 error)",
    usage: "[options] [files...]",
    load: async () => (await import("./commands/scan-command")).registerScan,
  },
  {
    name: "rules",
    description: "signature rule tools (binary analysis service: STACKWARDEN_BINARY_ANALYSIS_ENDPOINT)",
    usage: "",
    load: async () => (await import("./commands/rules-command")).registerRules,
  },
  {
    name: "watch",
    description:
      "the long-running reconciler of one or many stacks: drift and check on a schedule, follow git, serve /healthz /readyz /metrics, a status page and API, send signed events (runs until SIGTERM, then exits 0)",
    load: async () => (await import("./commands/watch-command")).registerWatch,
  },
  {
    name: "audit",
    description: "the per-stack audit trail of applies",
    usage: "",
    load: async () => (await import("./commands/audit-command")).registerAudit,
  },
  {
    name: "lock",
    description: "the per-stack lock that every apply takes (status, break)",
    usage: "",
    load: async () => (await import("./commands/lock-command")).registerLock,
  },
  {
    name: "events",
    description: "the CloudEvents that watch --notify sends to webhooks",
    usage: "",
    load: async () => (await import("./commands/events-command")).registerEvents,
  },
  {
    name: "evidence",
    description:
      "write an evidence bundle from one check (SARIF, JSON and Markdown reports, the live facts with their read times and request ids, the exemptions in force, a sha-256 manifest anchored in the stack's audit trail); `evidence verify DIR` checks one (exit 0, 3 a mandatory violation, 1 error; verify: 0 intact, 5 tampered or unanchored, 1 error)",
    load: async () => (await import("./commands/evidence-command")).registerEvidence,
  },
  {
    name: "geocode",
    description:
      "geocode an address with the geocoding service (STACKWARDEN_GEOCODING_ENDPOINT, STACKWARDEN_GEOCODING_API_KEY): its parts, position and country (exit 0, 1 no match or error)",
    usage: "[options] <address>",
    load: async () => (await import("./commands/geocode-command")).registerGeocode,
  },
  {
    name: "where",
    description:
      "place every located resource of the stack (SQL databases, Batch AI workspaces, clusters, file servers) and every site of stackwarden:residency in a country: region, coordinates, country (exit 0, 1 error: also a database that could not be read, the others still placed)",
    load: async () => (await import("./commands/where-command")).registerWhere,
  },
  {
    name: "stacks",
    description:
      "list the project's stacks (stacks/Pulumi.<name>.yaml), or those changed since a git ref; --output json is a GitHub Actions matrix (exit 0, 1 error)",
    load: async () => (await import("./commands/stacks-command")).registerStacks,
  },
  {
    name: "pko",
    description:
      "write a Pulumi Kubernetes Operator Stack resource (pulumi.com/v1) per stack, validated against the operator's CRD (exit 0, 1 error)",
    load: async () => (await import("./commands/pko-command")).registerPko,
  },
];

/** How the listing shows a command: its name and usage, as commander shows a loaded one. */
export function commandTerm(entry: CommandEntry): string {
  const usage = entry.usage ?? "[options]";
  return usage ? `${entry.name} ${usage}` : entry.name;
}
