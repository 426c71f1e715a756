import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { findProjectDir, resolveArtifacts } from "../src/domain/artifacts/artifact-scan";
import { sha256FileSync } from "../src/platform/files/file-digest";
import { displayPath } from "../src/platform/files/path-glob";
import { stackConfigFromValues, type StackConfig } from "../src/domain/stack/stack-config";
import { protectorKeyOf, stackServers } from "../src/domain/facts/key-custody-reads";
import type { EncryptionProtector as EncryptionProtectorObject } from "../src/services/sql/key-custody-types";
import { databaseLabel } from "../src/platform/arm/resource-id";
import { locate, parseLocatedYaml } from "../src/platform/yaml/located-yaml";
import {
  ArtifactScan,
  BatchAiCluster,
  BatchAiExperiment,
  BatchAiFileServer,
  BatchAiJobs,
  BatchAiUsages,
  BatchAiWorkspace,
  CertificateProbe,
  ElasticPoolActivities,
  ElasticPoolDatabaseActivities,
  EncryptionProtector,
  KeyVault,
  KeyVaultKey,
  Residency,
  ServiceTierAdvisors,
  TransparentDataEncryption,
  TransparentDataEncryptionActivities,
} from "../providers";

/** Reads the `stackwarden:` keys of the stack's config and validates them with the CLI's schema. */
export function readStackConfig(): StackConfig {
  const values: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(pulumi.runtime.allConfig())) {
    if (!key.startsWith("stackwarden:")) continue;
    values[key] = parseConfigValue(raw);
  }
  // Pulumi hands secrets over decrypted; say which keys were secret, so a probe parameter stored
  // with `pulumi config set --secret --path` is taken (and kept in state) as the secret it is.
  const secretKeys = new Set(Object.keys(values).filter((k) => isConfigSecret(k)));
  try {
    return stackConfigFromValues(values, `stack ${pulumi.getStack()} config`, { secretKeys });
  } catch (e) {
    // A RunError prints its message without a stack trace.
    throw new pulumi.RunError((e as Error).message);
  }
}

/**
 * Whether Pulumi holds a config key as a secret. `pulumi.runtime.isConfigSecret` is exported at
 * run time but marked internal, so its declaration is not in the SDK's typings.
 */
function isConfigSecret(key: string): boolean {
  return (pulumi.runtime as unknown as { isConfigSecret(k: string): boolean }).isConfigSecret(key);
}

/** Structured config values arrive as JSON text; plain ones as strings. */
function parseConfigValue(raw: string): unknown {
  const t = raw.trim();
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      return JSON.parse(t);
    } catch {
      return raw;
    }
  }
  return raw;
}

/**
 * Where the stack's file names each database (`stacks/Pulumi.dev.yaml:12:7`), in the stack's
 * order: a provider's error about a database the cloud does not have names that line, as every
 * command does. Pulumi hands the program its config without positions, so the file is read for
 * them; none when it cannot be (the config came from elsewhere) or names other databases.
 */
function databaseEntries(stack: StackConfig): (string | undefined)[] {
  try {
    const project = findProjectDir(process.cwd());
    const shown = join(STACKS_FOLDER, `Pulumi.${pulumi.getStack()}.yaml`);
    const y = parseLocatedYaml(shown, readFileSync(join(project, shown), "utf8"));
    const listed = ((y.value as { config?: Record<string, unknown> })?.config?.["stackwarden:databases"] ?? []) as { database?: unknown }[];
    return stack.databases.map((d, i) => {
      if (listed[i]?.database !== d.database) return undefined;
      const at = locate(y, ["config", "stackwarden:databases", i]);
      return `${shown}:${at.line}:${at.column}`;
    });
  } catch {
    return [];
  }
}

/** The folder of stack files (Pulumi.yaml's stackConfigDir). */
const STACKS_FOLDER = "stacks";

/** A stable logical name from parts (Pulumi names must be unique within the stack). */
function logical(...parts: string[]): string {
  return parts.join("-").toLowerCase();
}

export interface Registered {
  /** By `rg/server/database`. */
  tde: Map<string, TransparentDataEncryption>;
  advisors: ServiceTierAdvisors[];
  /** By path relative to the project directory. */
  artifacts: Map<string, ArtifactScan>;
  /** By probe name. */
  probes: Map<string, CertificateProbe>;
  /** By `rg/server`. */
  protectors: Map<string, EncryptionProtector>;
}

/**
 * One ArtifactScan per file of `stackwarden:artifacts` (globs and rules relative to the project
 * directory), with the file's sha-256 and the rule set's digest as inputs: a changed file or rule set
 * is a diff. Registered first, so that the pack judges them before anything else changes.
 */
export function registerArtifacts(stack: StackConfig, projectDir = findProjectDir(process.cwd())): Map<string, ArtifactScan> {
  const scans = new Map<string, ArtifactScan>();
  if (!stack.artifacts) return scans;
  let resolved;
  try {
    resolved = resolveArtifacts(stack.artifacts, projectDir);
  } catch (e) {
    throw new pulumi.RunError((e as Error).message);
  }
  for (const p of resolved.unmatchedPaths) pulumi.log.warn(`stackwarden:artifacts.paths "${p}" matches no file`);
  for (const file of resolved.files) {
    const path = displayPath(projectDir, file);
    // Hashed synchronously: plain inputs register at once, in program order (before the databases).
    const { sha256 } = sha256FileSync(file);
    scans.set(
      path,
      new ArtifactScan(`artifact-${path}`, { path, sha256, rulesDigest: resolved.ruleSet.digest, rules: stack.artifacts.rules }),
    );
  }
  return scans;
}

/** Registers the artifact scans, the TDE resources, every data source the stack names, and the post-deploy probes. */
export function registerStack(stack: StackConfig): Registered {
  const artifacts = registerArtifacts(stack);
  const sub = stack.subscriptionId;
  const tde = new Map<string, TransparentDataEncryption>();
  const advisors: ServiceTierAdvisors[] = [];
  const entries = databaseEntries(stack);
  // A loop, not forEach: each resource records the frame that registered it as `registerStack (…)`,
  // and an anonymous callback's frame has no name for Pulumi's source-position pattern to read.
  for (const [i, d] of stack.databases.entries()) {
    const ref = { subscriptionId: sub, resourceGroup: d.resourceGroup, server: d.server, database: d.database };
    const name = logical(d.resourceGroup, d.server, d.database);
    const stackEntry = entries[i];
    const resource = new TransparentDataEncryption(`tde-${name}`, {
      ...ref,
      transparentDataEncryption: d.transparentDataEncryption,
      ...(stackEntry ? { stackEntry } : {}),
    });
    tde.set(databaseLabel(d), resource);
    advisors.push(
      new ServiceTierAdvisors(`advisors-${name}`, { ...ref, ...(d.serviceObjective ? { serviceObjective: d.serviceObjective } : {}) }),
    );
    // Read after the TDE change so the scan it started is what shows.
    new TransparentDataEncryptionActivities(`tde-activity-${name}`, ref, { dependsOn: [resource] });
  }
  const protectors = registerKeyCustody(stack);
  for (const p of stack.elasticPools) {
    const ref = { subscriptionId: sub, resourceGroup: p.resourceGroup, server: p.server, elasticPool: p.elasticPool };
    const name = logical(p.resourceGroup, p.server, p.elasticPool);
    new ElasticPoolActivities(`pool-activity-${name}`, ref);
    new ElasticPoolDatabaseActivities(`pool-db-activity-${name}`, ref);
  }
  for (const location of stack.batch.locations) {
    new BatchAiUsages(`batchai-usages-${location}`, { subscriptionId: sub, location });
  }
  for (const w of stack.batch.workspaces) {
    const ref = { subscriptionId: sub, resourceGroup: w.resourceGroup, workspace: w.workspace };
    const name = logical(w.resourceGroup, w.workspace);
    new BatchAiWorkspace(`batchai-workspace-${name}`, ref);
    for (const c of w.clusters ?? []) new BatchAiCluster(`batchai-cluster-${name}-${c}`, { ...ref, cluster: c });
    for (const f of w.fileServers ?? []) new BatchAiFileServer(`batchai-fileserver-${name}-${f}`, { ...ref, fileServer: f });
    for (const e of w.experiments ?? []) {
      new BatchAiExperiment(`batchai-experiment-${name}-${e}`, { ...ref, experiment: e });
      new BatchAiJobs(`batchai-jobs-${name}-${e}`, { ...ref, experiment: e });
    }
  }
  // Post-deploy probes run after every TDE resource (dependsOn) and follow their statuses: an up
  // that updates one runs them again (they prove the services on those databases still issue
  // documents); an up with nothing to change leaves them as they are, so the stack previews clean.
  const probes = new Map<string, CertificateProbe>();
  const deployed = [...tde.values()];
  const deployment = pulumi.all(deployed.map((r) => r.status));
  for (const p of stack.probes ?? []) {
    const args = { name: p.name, issuer: p.issuer, doctype: p.doctype, format: p.format, parameters: p.parameters, deployment };
    probes.set(p.name, new CertificateProbe(`probe-${p.name}`, args, { dependsOn: deployed }));
  }
  if (stack.residency) {
    // The policy pack sees resources, not the stack's config: this carries the residency section to it.
    const { allowedCountries, sites } = stack.residency;
    new Residency("residency", { allowedCountries, sites: sites.map((s) => ({ name: s.name, address: s.address })) });
  }
  return { tde, advisors, artifacts, probes, protectors };
}

/**
 * Key custody, read-only: one EncryptionProtector per server of the stack's databases; once they are
 * read, one KeyVault per distinct vault and one KeyVaultKey per distinct key version their customer-
 * managed protectors name (a protector names its key only by URI, so these are registered when the
 * protectors' outputs are known: during a preview of a new stack they appear at `up`).
 */
export function registerKeyCustody(stack: StackConfig): Map<string, EncryptionProtector> {
  const sub = stack.subscriptionId;
  const protectors = new Map<string, EncryptionProtector>();
  for (const s of stackServers(stack)) {
    const ref = { subscriptionId: sub, resourceGroup: s.resourceGroup, server: s.server };
    protectors.set(s.label, new EncryptionProtector(`tde-protector-${logical(s.resourceGroup, s.server)}`, ref));
  }
  if (protectors.size === 0) return protectors;
  pulumi.all([...protectors.values()].map((p) => p.protector)).apply((read) => {
    const vaults = new Set<string>();
    const keys = new Set<string>();
    for (const p of read) {
      const key = protectorKeyOf(p as EncryptionProtectorObject | undefined);
      if (!key || key.managedHsm) continue;
      if (!vaults.has(key.vaultName)) {
        vaults.add(key.vaultName);
        new KeyVault(`keyvault-${key.vaultName}`, { subscriptionId: sub, vault: key.vaultName });
      }
      if (!keys.has(key.identity)) {
        keys.add(key.identity);
        const name = logical("keyvault-key", key.vaultName, key.keyName, ...(key.version ? [key.version] : []));
        new KeyVaultKey(name, {
          subscriptionId: sub,
          vault: key.vaultName,
          key: key.keyName,
          ...(key.version ? { version: key.version } : {}),
        });
      }
    }
  });
  return protectors;
}
