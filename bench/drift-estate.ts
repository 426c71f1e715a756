/**
 * The estate of `drift-latency` (bench/drift-latency.bench.ts): DATABASES databases on one
 * subscription, one server per stack, so that each out-of-band change opens its own drift episode
 * (one `drift.detected` per change). Stacks come in three kinds, by their server's name:
 * - `sql-eg-NNN`: the change records of their writes reach the watcher both ways (Event Grid first);
 * - `sql-al-NNN`: Event Grid's deliveries of their writes are dropped (a record fault rule), so the
 *   watcher learns of them only from the Activity Log it pulls;
 * - `sql-dark-NN`: every change record of their writes is dropped (both channels): only a sweep finds them.
 */
export const SUB = "00000000-0000-0000-0000-000000000000";
export const RG = "rg-drift";

export type StackKind = "eg" | "al" | "dark";

export interface DriftStack {
  kind: StackKind;
  /** The server's name, also the stack's (`stacks/Pulumi.<name>.yaml`). */
  name: string;
  databases: string[];
}

/** The watchers' principals: each has its own share of Resource Manager's read budget, as separate identities do in Azure. */
export const IDENTITIES = {
  changeDriven: { clientId: "6f3b1e52-0c1d-4a7e-9b8f-2d4c6e8a0b11", objectId: "7a4c2f63-1d2e-4b8f-8c9a-3e5d7f9b1c22" },
  sweepOnly: { clientId: "8b5d3a74-2e3f-4c9a-9dab-4f6e8a0c2d33", objectId: "9c6e4b85-3f4a-4dab-aebc-5a7f9b1d3e44" },
} as const;

/** `changes` stacks of each measured kind and `dark` dark ones, sharing `databases` databases as evenly as whole numbers allow. */
export function driftStacks(databases: number, changes: number, dark: number): DriftStack[] {
  const kinds: { kind: StackKind; name: string }[] = [
    ...Array.from({ length: changes }, (_, i) => ({ kind: "eg" as const, name: `sql-eg-${String(i).padStart(3, "0")}` })),
    ...Array.from({ length: changes }, (_, i) => ({ kind: "al" as const, name: `sql-al-${String(i).padStart(3, "0")}` })),
    ...Array.from({ length: dark }, (_, i) => ({ kind: "dark" as const, name: `sql-dark-${String(i).padStart(2, "0")}` })),
  ];
  const each = Math.floor(databases / kinds.length);
  const extra = databases - each * kinds.length;
  return kinds.map((k, i) => ({
    ...k,
    databases: Array.from({ length: each + (i < extra ? 1 : 0) }, (_, d) => `db-${String(d).padStart(3, "0")}`),
  }));
}

const serversPrefix = `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Sql/servers/`;

/**
 * The emulator's seed: every database Enabled (so the only drift is what the bench makes), the
 * three identities on its IMDS, and the record fault rules that make the `al` and `dark` stacks
 * what they are. Event Grid's subscription is added at run time, once the watcher listens.
 */
export function driftSeed(stacks: readonly DriftStack[]) {
  return {
    imds: { userIdentities: Object.values(IDENTITIES) },
    sql: {
      subscriptionId: SUB,
      scanDurationMs: 200,
      servers: stacks.map((s) => ({
        name: s.name,
        resourceGroup: RG,
        databases: s.databases.map((d) => ({ name: d, transparentDataEncryption: "Enabled" })),
      })),
    },
    faults: {
      rules: [
        { record: "drop", channel: "eventGrid", match: `${serversPrefix}sql-al-`, rate: 1 },
        { record: "drop", match: `${serversPrefix}sql-dark-`, rate: 1 },
      ],
    },
  };
}

/** A stack file: its server's databases, TDE desired Enabled. */
export function driftStackFile(s: DriftStack): string {
  const dbs = s.databases.map(
    (d) => `    - { resourceGroup: ${RG}, server: ${s.name}, database: ${d}, transparentDataEncryption: Enabled }\n`,
  );
  return `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n${dbs.join("")}`;
}
