import { StackwardenError } from "../platform/errors/stackwarden-error";
import { EMULATOR_FLAG, emulatorServesAny, emulatorUrl, type ServiceSetting } from "../platform/settings/emulator-settings";
import { EMULATOR_PROBE_PATH, probeEmulator, probeEmulatorOnce, type EmulatorProbe } from "./emulator-probe";

/** How long a second probe, made only to say what the fix is (the same port without the path, or over http), may take, in ms. */
const FOLLOW_UP_TIMEOUT_MS = 400;

/** STACKWARDEN_EMULATOR (or `--emulator`) does not lead to a running emulator: `SW_EMULATOR_URL`. */
export class EmulatorUrlError extends StackwardenError {
  constructor(message: string) {
    super("SW_EMULATOR_URL", message);
    this.name = "EmulatorUrlError";
  }
}

/**
 * Checks, before any credential is tried or any service called, that the emulator STACKWARDEN_EMULATOR
 * (or `--emulator`) points services at answers there: one request per process, at most
 * PROBE_TIMEOUT_MS. A URL where a server answers 404 (a path after the port), something else answers,
 * TLS fails (https for the emulator's plain http) or nothing listens throws an EmulatorUrlError in one
 * line naming the setting, its value and the likely fix; no credential is named, for none is to
 * blame. No answer within the timeout lets the command go on: a busy emulator is not a wrong URL,
 * and the command's own requests say what they meet. Nothing is asked when the setting is unset or
 * every service's own variable overrides it.
 */
export async function requireEmulator(env: NodeJS.ProcessEnv): Promise<void> {
  if (emulatorServesAny(env)) await requireEmulatorAt(emulatorUrl(env)!);
}

/** requireEmulator's check of one setting (STACKWARDEN_EMULATOR's or `--emulator`'s value), whatever else the environment sets. */
export async function requireEmulatorAt(setting: ServiceSetting): Promise<void> {
  const probe = await probeEmulatorOnce(setting.value);
  if (probe.kind === "emulator" || probe.kind === "no-answer") return;
  throw new EmulatorUrlError(`${shown(setting, setting.value)}: ${await explain(setting, probe)}`);
}

/** What the probe found and what to do, the fix confirmed by a second probe where one can tell it. */
async function explain(setting: ServiceSetting, probe: Exclude<EmulatorProbe, { kind: "emulator" | "no-answer" }>): Promise<string> {
  const url = new URL(setting.value);
  const asked = `GET ${setting.value}${EMULATOR_PROBE_PATH}`;
  const use = (better: string) => `use ${better} (${shown(setting, better, true)})`;
  switch (probe.kind) {
    case "tls": {
      const plain = setting.value.replace(/^https:/, "http:");
      const served = url.protocol === "https:" && (await answersAsEmulator(plain));
      return served
        ? `${probe.said}: the emulator there serves plain http; ${use(plain)}`
        : `${probe.said}: the emulator serves plain http, so its URL starts with http://; set it to the URL \`stackwarden emulator\` prints`;
    }
    case "unreachable":
      return probe.code === "ECONNREFUSED"
        ? `nothing listens at ${url.host} (ECONNREFUSED): is the emulator running? Start it with \`npx stackwarden emulator --port ${portOf(url)}\`, or set the URL a running one printed`
        : `${url.hostname} cannot be reached (${probe.code}): check the host; is the emulator running there? Set the URL \`stackwarden emulator\` printed`;
    case "not-found":
    case "foreign": {
      const what = probe.kind === "not-found" ? `${asked} answered ${probe.said}` : `${asked}: ${probe.said}`;
      if (url.pathname !== "/" && (await answersAsEmulator(url.origin)))
        return `${what}; the emulator answers at ${url.origin}: drop the path, ${use(url.origin)}`;
      return `${what}: no stackwarden emulator answers at this URL; set it to the URL \`stackwarden emulator\` prints first (scheme, host and port, no path)`;
    }
  }
}

/** Whether the emulator answers at `base` (a quick second look, never remembered). */
async function answersAsEmulator(base: string): Promise<boolean> {
  return (await probeEmulator(base, FOLLOW_UP_TIMEOUT_MS)).kind === "emulator";
}

/** The setting as a person typed it, `STACKWARDEN_EMULATOR=URL` or `--emulator URL`; as a fix, `export STACKWARDEN_EMULATOR=URL`. */
function shown(setting: ServiceSetting, value: string, asFix = false): string {
  if (setting.from === EMULATOR_FLAG) return `${EMULATOR_FLAG} ${value}`;
  return `${asFix ? "export " : ""}${setting.from}=${value}`;
}

/** A URL's port, or its scheme's default. */
function portOf(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}
