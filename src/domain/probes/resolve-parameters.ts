import { SettingsError } from "../../platform/settings/endpoints";
import { DOCTYPE_INFO } from "../../services/certificates/catalogue";
import type { ProbeSpec } from "./probe-config";

export interface ResolveOptions {
  /**
   * Whether `${env:NAME:-DEMO}` may fall back to its demo value. Demo values are invented and
   * match the emulator's example estate only, so they are refused against the real issuers.
   */
  allowDemoDefaults: boolean;
  /** Named in the error when a demo value is refused (the endpoint the probe would go to). */
  endpoint?: string;
}

/**
 * The probe's certificateParameters, read from where the stack says they are. A missing value is
 * a SettingsError naming the probe, the parameter and the variable to set, never a value.
 * The result is personal data: hand it to the client and let it go; never log or keep it.
 */
export function resolveProbeParameters(probe: ProbeSpec, env: NodeJS.ProcessEnv, opts: ResolveOptions): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of DOCTYPE_INFO[probe.doctype].parameters) {
    const source = probe.parameters[field.name];
    if (!source) continue;
    const fromEnv = env[source.variable];
    if (fromEnv !== undefined && fromEnv.trim() !== "") {
      out[field.name] = fromEnv;
      continue;
    }
    const where = `probe ${probe.name}: parameter ${field.name} (${field.description})`;
    if (source.from === "secret") {
      if (source.value !== undefined && source.value !== "") {
        out[field.name] = source.value;
        continue;
      }
      throw new SettingsError(
        `${where} is a Pulumi secret (secure:) that only Pulumi can decrypt; set ${source.variable} to supply it to the CLI`,
      );
    }
    if (source.demoDefault === undefined) throw new SettingsError(`${where}: set the environment variable ${source.variable}`);
    if (!opts.allowDemoDefaults) {
      throw new SettingsError(
        `${where}: ${source.variable} is not set, and its demo value (invented, for the emulator's example estate) is never sent to ${opts.endpoint ?? "the real issuers"}; set ${source.variable}, or point STACKWARDEN_APISETU_ENDPOINT at the emulator`,
      );
    }
    out[field.name] = source.demoDefault;
  }
  return out;
}
