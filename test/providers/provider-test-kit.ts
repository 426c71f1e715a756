import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { RunningEmulator } from "../../src/emulator/server";
import type { CarrierToken } from "../../src/domain/facts/carrier";
import type { SqlState } from "../../src/emulator/services/sql/sql-local";
import type { BatchAiState } from "../../src/emulator/services/batchai/seed";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";

/** Shared pieces of the provider tests: the estate, each data source's inputs and what it must read. */

export const SUB = "00000000-0000-0000-0000-000000000000";
export const SERVER = "sql-pulumi-1";
const ESTATE = join(__dirname, "../fixtures/pulumi/estate.yaml");

/** An emulator serving test/fixtures/pulumi/estate.yaml (short scans, page size 2). */
export function startEstate(): Promise<TestEmulator> {
  return startTestEmulator({ seed: seedFromYaml(readFileSync(ESTATE, "utf8")) });
}

export const dbRef = (database: string) => ({ subscriptionId: SUB, resourceGroup: "rg-data", server: SERVER, database });
export const dbId = (database: string) =>
  `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/${SERVER}/databases/${database}`;
const poolRef = { subscriptionId: SUB, resourceGroup: "rg-data", server: SERVER, elasticPool: "pool-1" };
const wsRef = { subscriptionId: SUB, resourceGroup: "rg-ml", workspace: "ws-vision" };
const wsId = `/subscriptions/${SUB}/resourceGroups/rg-ml/providers/Microsoft.BatchAI/workspaces/ws-vision`;

export interface KindCase {
  inputs: Record<string, string>;
  id: string;
  /** The output property and a check of what the emulator's estate must give there. */
  output: string;
  expectData(data: any): void;
}

/** Every data-source kind: its inputs in the estate, its id, and the seeded objects it must return. */
export const KIND_CASES = {
  "sql:ServiceTierAdvisors": {
    inputs: { ...dbRef("orders"), serviceObjective: "S3" },
    id: `${dbId("orders")}/serviceTierAdvisors`,
    output: "advisors",
    expectData: (d) => {
      expect(d).toHaveLength(1);
      expect(d[0]).toMatchObject({
        name: "Current",
        type: "Microsoft.Sql/servers/databases/serviceTierAdvisors",
        properties: { overallRecommendationServiceLevelObjective: "S3", currentServiceLevelObjective: "S0", confidence: 0.9 },
      });
    },
  },
  "sql:ElasticPoolActivities": {
    inputs: poolRef,
    id: `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/${SERVER}/elasticPools/pool-1/elasticPoolActivity`,
    output: "activities",
    expectData: (d) =>
      expect(d.map((a: any) => [a.properties.operation, a.properties.state])).toEqual([
        ["CREATE", "COMPLETED"],
        ["UPDATE", "IN_PROGRESS"],
      ]),
  },
  "sql:ElasticPoolDatabaseActivities": {
    inputs: poolRef,
    id: `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/${SERVER}/elasticPools/pool-1/elasticPoolDatabaseActivity`,
    output: "activities",
    expectData: (d) => {
      expect(d).toHaveLength(1);
      expect(d[0].properties).toMatchObject({ databaseName: "analytics", operation: "UPDATE", currentElasticPoolName: "pool-1" });
    },
  },
  "sql:TransparentDataEncryptionActivities": {
    // `archive` is being encrypted (see startArchiveScan) and its scan lasts an hour.
    inputs: dbRef("archive"),
    id: `${dbId("archive")}/transparentDataEncryption/current/operationResults`,
    output: "activities",
    expectData: (d) => {
      expect(d).toHaveLength(1);
      expect(d[0].properties).toMatchObject({ status: "Encrypting", percentComplete: expect.any(Number) });
      expect(d[0].properties.percentComplete).toBeLessThan(100);
    },
  },
  "batchai:Workspace": {
    inputs: wsRef,
    id: wsId,
    output: "workspaceResource",
    expectData: (d) => expect(d).toMatchObject({ id: wsId, name: "ws-vision", location: "eastus", type: "Microsoft.BatchAI/workspaces" }),
  },
  "batchai:Cluster": {
    inputs: { ...wsRef, cluster: "gpu-nc6" },
    id: `${wsId}/clusters/gpu-nc6`,
    output: "clusterResource",
    expectData: (d) =>
      expect(d).toMatchObject({
        id: `${wsId}/clusters/gpu-nc6`,
        name: "gpu-nc6",
        properties: { vmSize: "STANDARD_NC6", allocationState: "steady" },
      }),
  },
  "batchai:Experiment": {
    inputs: { ...wsRef, experiment: "resnet50" },
    id: `${wsId}/experiments/resnet50`,
    output: "experimentResource",
    expectData: (d) => expect(d).toMatchObject({ id: `${wsId}/experiments/resnet50`, name: "resnet50" }),
  },
  "batchai:FileServer": {
    inputs: { ...wsRef, fileServer: "nfs-datasets" },
    id: `${wsId}/fileServers/nfs-datasets`,
    output: "fileServerResource",
    expectData: (d) =>
      expect(d).toMatchObject({ id: `${wsId}/fileServers/nfs-datasets`, name: "nfs-datasets", properties: { vmSize: "STANDARD_D14_V2" } }),
  },
  "batchai:Jobs": {
    inputs: { ...wsRef, experiment: "resnet50" },
    id: `${wsId}/experiments/resnet50/jobs`,
    output: "jobs",
    // Five jobs at page size 2: three pages followed to the end.
    expectData: (d) =>
      expect(d.map((j: any) => [j.name, j.properties.executionState])).toEqual([
        ["baseline", "succeeded"],
        ["lr-sweep-1", "failed"],
        ["lr-sweep-2", "running"],
        ["lr-sweep-3", "queued"],
        ["lr-sweep-4", "terminating"],
      ]),
  },
  "batchai:Usages": {
    inputs: { subscriptionId: SUB, location: "eastus" },
    id: `/subscriptions/${SUB}/providers/Microsoft.BatchAI/locations/eastus/usages`,
    output: "usages",
    expectData: (d) =>
      expect(d.map((u: any) => [u.name.value, u.currentValue, u.limit])).toEqual([
        ["cores", 92, 100],
        ["dedicatedCores", 48, 100],
        ["clusters", 1, 20],
      ]),
  },
} satisfies Record<CarrierToken, KindCase>;

/** A data source of the estate's cases, by token. */
export type KindToken = keyof typeof KIND_CASES;

export const ALL_KINDS = Object.keys(KIND_CASES) as KindToken[];

/** The emulator's SQL database state (mutate it, then call `emu.store.changed()`). */
export function sqlDatabase(emu: RunningEmulator, database: string) {
  const sql = emu.store.state.services.sql as SqlState;
  const db = sql.servers.find((s) => s.name === SERVER)!.databases.find((d) => d.name === database);
  if (!db) throw new Error(`no database ${database} in the estate`);
  return db;
}

/** The emulator's Batch AI job record. */
export function batchJob(emu: RunningEmulator, experiment: string, job: string) {
  const batch = emu.store.state.services.batchai as BatchAiState;
  const w = batch.workspaces.find((x) => x.name === "ws-vision")!;
  const j = w.experiments.find((e) => e.name === experiment)!.jobs.find((x) => x.name === job);
  if (!j) throw new Error(`no job ${experiment}/${job} in the estate`);
  return j;
}

/** Sets the environment the provider methods read for the duration of a suite; returns the restorer. */
export function useProviderEnv(t: TestEmulator): () => void {
  const keys = [
    "STACKWARDEN_ARM_ENDPOINT",
    "STACKWARDEN_IMDS_ENDPOINT",
    "AZURE_ACCESS_TOKEN",
    "AZURE_CLIENT_ID",
    "STACKWARDEN_PROVIDER_NAMES",
    "STACKWARDEN_HOME",
    "STACKWARDEN_STATE_URL",
    "STACKWARDEN_LOCK_HELD",
    "STACKWARDEN_LOCK_TIMEOUT",
  ];
  const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
  for (const k of keys) delete process.env[k];
  process.env.STACKWARDEN_ARM_ENDPOINT = t.url;
  process.env.STACKWARDEN_IMDS_ENDPOINT = t.imdsEndpoint;
  // The plugin runs in stacks/ and finds the project at `..`; this process runs in the project, so it names it.
  process.env.STACKWARDEN_HOME = join(__dirname, "../..");
  // The TDE provider's writes take the stack's lock and append to its audit trail: here, not in the checkout.
  process.env.STACKWARDEN_STATE_URL = `file:${providerStateDir()}`;
  return () => {
    for (const k of keys) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  };
}

/** A fresh directory for the locks and audit trails of the TDE provider's writes in a test. */
export function providerStateDir(): string {
  return mkdtempSync(join(tmpdir(), "stackwarden-provider-state-"));
}

/** The Pulumi stack the provider tests' TDE resources name (the resource class sets the program's). */
export const TEST_STACK = "test";
