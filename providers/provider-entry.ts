import type * as pulumi from "@pulumi/pulumi";
import { findDataSource } from "../src/domain/facts/data-source-registry";
import { dataSourceProvider } from "./data-source-provider";
import type { ProviderName } from "./provider-text";
import { tdeProvider } from "./tde-provider";
import { certificateProbeProvider } from "./certificate-probe-provider";
import { artifactScanProvider } from "./artifact-scan-provider";
import { residencyProvider } from "./residency-provider";

const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

/** The resources with a provider of their own; every other name is a data source's token (src/domain/facts/data-source-registry.ts). */
const OWN_PROVIDERS: Record<string, pulumi.dynamic.ResourceProvider> = {
  tde: tdeProvider,
  certificateProbe: certificateProbeProvider,
  artifactScan: artifactScanProvider,
  residency: residencyProvider,
};

/**
 * What a resource's `__provider` text loads (compiled: dist/providers/provider-entry.js): the
 * provider by name, built once per plugin process. The plugin itself caches one per distinct text.
 */
export function provider(name: ProviderName): pulumi.dynamic.ResourceProvider {
  let p = providers.get(name);
  if (!p) {
    const source = Object.prototype.hasOwnProperty.call(OWN_PROVIDERS, name) ? undefined : findDataSource(name);
    p = source ? dataSourceProvider(source) : OWN_PROVIDERS[name];
    if (!p) throw new Error(`stackwarden has no dynamic provider named "${name}" (a stack written by another version?)`);
    providers.set(name, p);
  }
  return p;
}
