import type * as pulumi from "@pulumi/pulumi";
import { DATA_SOURCES, type DataSourceKind } from "../src/interfaces/pulumi/data-sources";
import { dataSourceProvider } from "./data-source-provider";
import type { ProviderName } from "./provider-text";
import { tdeProvider } from "./tde-provider";
import { certificateProbeProvider } from "./certificate-probe-provider";
import { artifactScanProvider } from "./artifact-scan-provider";
import { residencyProvider } from "./residency-provider";
import { KEY_CUSTODY_SOURCES, type KeyCustodySourceKind } from "../src/interfaces/pulumi/key-custody-sources";
import { keyCustodyProvider } from "./key-custody-provider";

const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

/**
 * What a resource's `__provider` text loads (compiled: dist/providers/provider-entry.js): the
 * provider by name, built once per plugin process. The plugin itself caches one per distinct text.
 */
export function provider(name: ProviderName): pulumi.dynamic.ResourceProvider {
  let p = providers.get(name);
  if (!p) {
    if (name === "tde") p = tdeProvider;
    else if (name === "certificateProbe") p = certificateProbeProvider;
    else if (name === "artifactScan") p = artifactScanProvider;
    else if (name === "residency") p = residencyProvider;
    else if (Object.prototype.hasOwnProperty.call(DATA_SOURCES, name)) p = dataSourceProvider(name as DataSourceKind);
    else if (Object.prototype.hasOwnProperty.call(KEY_CUSTODY_SOURCES, name)) p = keyCustodyProvider(name as KeyCustodySourceKind);
    else throw new Error(`stackwarden has no dynamic provider named "${name}" (a stack written by another version?)`);
    providers.set(name, p);
  }
  return p;
}
