import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { findProjectDir, resolveArtifacts } from "../src/domain/artifacts/artifact-gate";
import { localArtifactFiles } from "../src/usecases/local-artifact-gate";
import { sha256FileSync } from "../src/platform/files/file-digest";
import { displayPath } from "../src/platform/files/path-glob";
import { databaseSubscription, stackConfigFromValues, type StackConfig } from "../src/domain/stack/stack-config";
import { allDataSources } from "../src/domain/facts/data-source-registry";
import { tdeResourceName } from "../src/domain/facts/tde-status";
import { databaseLabel } from "../src/platform/arm/resource-id";
import { locate, parseLocatedYaml } from "../src/platform/yaml/located-yaml";
import { ArtifactScan, CertificateProbe, DataSourceResource, Residency, TransparentDataEncryption } from "../providers";

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
    const project = findProjectDir(localArtifactFiles, process.cwd());
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

export interface Registered {
  /** By `rg/server/database`. */
  tde: Map<string, TransparentDataEncryption>;
  /** Every data source registered at once (not those that follow another's outputs), by logical name. */
  dataSources: Map<string, DataSourceResource>;
  /** By path relative to the project directory. */
  artifacts: Map<string, ArtifactScan>;
  /** By probe name. */
  probes: Map<string, CertificateProbe>;
}

/**
 * One ArtifactScan per file of `stackwarden:artifacts` (globs and rules relative to the project
 * directory), with the file's sha-256 and the rule set's digest as inputs: a changed file or rule set
 * is a diff. Registered first, so that the pack judges them before anything else changes.
 */
export function registerArtifacts(
  stack: StackConfig,
  projectDir = findProjectDir(localArtifactFiles, process.cwd()),
): Map<string, ArtifactScan> {
  const scans = new Map<string, ArtifactScan>();
  if (!stack.artifacts) return scans;
  let resolved;
  try {
    resolved = resolveArtifacts(localArtifactFiles, stack.artifacts, projectDir);
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
  const tde = new Map<string, TransparentDataEncryption>();
  const byName = new Map<string, pulumi.Resource>();
  const entries = databaseEntries(stack);
  // A loop, not forEach: each resource records the frame that registered it as `registerStack (…)`,
  // and an anonymous callback's frame has no name for Pulumi's source-position pattern to read.
  for (const [i, d] of stack.databases.entries()) {
    const stackEntry = entries[i];
    const resource = new TransparentDataEncryption(tdeResourceName(d), {
      subscriptionId: databaseSubscription(stack, d),
      resourceGroup: d.resourceGroup,
      server: d.server,
      database: d.database,
      transparentDataEncryption: d.transparentDataEncryption,
      ...(stackEntry ? { stackEntry } : {}),
    });
    tde.set(databaseLabel(d), resource);
    byName.set(tdeResourceName(d), resource);
  }
  const dataSources = registerDataSources(stack, byName);
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
  return { tde, artifacts, probes, dataSources };
}

/**
 * Every registered data source (src/domain/facts/data-source-registry.ts) as the stack names it:
 * first those its config names, in registry order (each after the resource it is read after, of
 * `registered`); then, once their outputs are read, those that follow another source's outputs
 * (a TDE protector names its vault and key only by URI: during a preview of a new stack they
 * appear at `up`).
 */
export function registerDataSources(stack: StackConfig, registered: ReadonlyMap<string, pulumi.Resource>): Map<string, DataSourceResource> {
  const sources = allDataSources();
  const made = new Map<string, DataSourceResource>();
  const ofSource = new Map<string, DataSourceResource[]>();
  for (const source of sources) {
    const list: DataSourceResource[] = [];
    for (const i of source.instances?.(stack) ?? []) {
      const after = i.after ? registered.get(i.after) : undefined;
      const resource = new DataSourceResource(source, i.name, i.inputs, after ? { dependsOn: [after] } : undefined);
      made.set(i.name, resource);
      list.push(resource);
    }
    ofSource.set(source.token, list);
  }
  for (const source of sources) {
    const follows = source.follows;
    if (!follows) continue;
    const read = [follows.source, ...(follows.also ?? [])].flatMap((s) =>
      (ofSource.get(s.token) ?? []).map((r) => r.outputNamed(s.output)),
    );
    if (read.length === 0) continue;
    pulumi.all(read).apply((values) => {
      for (const i of follows.instances(values, stack)) new DataSourceResource(source, i.name, i.inputs);
    });
  }
  return made;
}
