/**
 * Every environment variable stackwarden reads, with its default and what it does: the one list the
 * reference table (docs/reference.md, `npm run docs:reference`) is generated from. A test checks that
 * each `STACKWARDEN_…` name the source mentions is listed here, so a new variable cannot go undocumented.
 */
export interface EnvironmentVariable {
  /** The name, or names read together (`AZURE_TENANT_ID`, `AZURE_CLIENT_ID`, …); a pattern is written `STACKWARDEN_PROBE_<PROBE>_<PARAMETER>`. */
  readonly names: readonly string[];
  /** What applies when it is unset, as a person reads it (`""`: nothing; the feature is off or the value is required). */
  readonly default: string;
  /** What it does. */
  readonly meaning: string;
  /** Where it is read: the table groups by it. */
  readonly group: EnvironmentGroup;
  /** Set by stackwarden itself for a process it starts, never by hand. */
  readonly internal?: boolean;
}

/** The groups of the table, in order. */
export const ENVIRONMENT_GROUPS = {
  endpoints: "Endpoints and the emulator",
  credentials: "Credentials (Azure's own chain)",
  state: "State: locks, audit trails, probe results, the watcher",
  watcher: "The watcher",
  pulumi: "Pulumi",
  local: "Local files, logs and processes",
} as const;
export type EnvironmentGroup = keyof typeof ENVIRONMENT_GROUPS;

/** Every variable, in table order. */
export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  {
    names: ["STACKWARDEN_EMULATOR"],
    default: "",
    meaning:
      "the emulator's base URL: every service at its path there, with keys it accepts (`--emulator URL` sets it for one command); each service's own variable overrides it",
    group: "endpoints",
  },
  {
    names: ["STACKWARDEN_ARM_ENDPOINT"],
    default: "`https://management.azure.com`",
    meaning: "Azure Resource Manager (SQL, Batch AI, Key Vault's control plane, the Activity Log)",
    group: "endpoints",
  },
  {
    names: ["STACKWARDEN_IMDS_ENDPOINT"],
    default: "`http://169.254.169.254/metadata`",
    meaning:
      "Instance Metadata Service (`whoami`, the audit trail's VM identity); when set, the credential chain's managed identity asks this IMDS, without a probe; over http it must be a loopback or link-local address",
    group: "endpoints",
  },
  {
    names: ["STACKWARDEN_PROVIDER_NAMES"],
    default: "`real`",
    meaning:
      "`described` sends `Provider.Sql` / `Provider.BatchAI` instead of `Microsoft.*`, and `X-GATEWAY-APIKEY` / `X-GATEWAY-CLIENTID` instead of `X-APISETU-*`",
    group: "endpoints",
  },
  {
    names: ["STACKWARDEN_APISETU_ENDPOINT"],
    default: "`https://apisetu.gov.in`",
    meaning: "the certificate issuers: the part before `/<issuer>/v3` (the emulator's is `<url>/apisetu`)",
    group: "endpoints",
  },
  {
    names: ["STACKWARDEN_APISETU_API_KEY"],
    default: "",
    meaning: "the issuers' API key (required by `probe`; the emulator accepts any non-empty value unless its seed names keys); never shown",
    group: "endpoints",
  },
  {
    names: ["STACKWARDEN_APISETU_CLIENT_ID"],
    default: "",
    meaning: "the issuers' client id (required by `probe`)",
    group: "endpoints",
  },
  {
    names: ["STACKWARDEN_PROBE_<PROBE>_<PARAMETER>"],
    default: "",
    meaning:
      "a probe parameter the stack stores as a Pulumi `secure:` value, which the CLI cannot decrypt (e.g. `STACKWARDEN_PROBE_HEALTH_POLICY_POLICY_NO`); never shown",
    group: "endpoints",
  },
  {
    names: ["STACKWARDEN_BINARY_ANALYSIS_ENDPOINT"],
    default: "(none)",
    meaning:
      "the binary analysis service (restful4up's API), e.g. `<emulator url>/binary-analysis/v1`, or `embedded` for the built-in engine in the process; it takes no key. `check` needs it when the stack has `stackwarden:artifacts`",
    group: "endpoints",
  },
  {
    names: ["STACKWARDEN_GEOCODING_ENDPOINT"],
    default: "`https://services.gisgraphy.com`",
    meaning:
      "the geocoding service (Gisgraphy's API) of `geocode`, `where` and the data residency rule (also in the policy pack); the emulator serves it at `<url>/geocoding`. With neither it, `STACKWARDEN_EMULATOR` nor a key set, those commands stop before any request, naming the variables",
    group: "endpoints",
  },
  {
    names: ["STACKWARDEN_GEOCODING_API_KEY"],
    default: "",
    meaning:
      "sent as the `api_key` query parameter; redacted from every log line and error, as are addresses and search text (any value works against the emulator unless its seed names keys)",
    group: "endpoints",
  },
  {
    names: ["STACKWARDEN_SUBSCRIPTION_ID"],
    default: "",
    meaning:
      "supplies `stackwarden:subscriptionId` when the stack stores it as a Pulumi `secure:` value (any key `stackwarden:fooBar` can be supplied as `STACKWARDEN_FOO_BAR`)",
    group: "endpoints",
  },
  {
    names: ["AZURE_ACCESS_TOKEN"],
    default: "",
    meaning:
      "a bearer token used as is: an explicit override, nothing else is tried (an expired one is an error, a 401 to it is final); never shown",
    group: "credentials",
  },
  {
    names: ["AZURE_TOKEN_CREDENTIALS"],
    default: "(the whole chain)",
    meaning:
      "narrows the credential chain as it narrows `DefaultAzureCredential`: `dev` (Azure CLI, Azure Developer CLI), `prod` (environment, workload identity, managed identity), or one of `EnvironmentCredential`, `WorkloadIdentityCredential`, `ManagedIdentityCredential` (then IMDS is not probed first), `AzureCliCredential`, `AzureDeveloperCliCredential`; another value is a one-line error",
    group: "credentials",
  },
  {
    names: [
      "AZURE_TENANT_ID",
      "AZURE_CLIENT_ID",
      "AZURE_CLIENT_SECRET",
      "AZURE_CLIENT_CERTIFICATE_PATH",
      "AZURE_CLIENT_CERTIFICATE_PASSWORD",
      "AZURE_CLIENT_SEND_CERTIFICATE_CHAIN",
    ],
    default: "",
    meaning: "an environment service principal, with a client secret or a PEM certificate",
    group: "credentials",
  },
  {
    names: ["AZURE_FEDERATED_TOKEN_FILE", "AZURE_CLIENT_ID", "AZURE_TENANT_ID"],
    default: "",
    meaning:
      "workload identity (Kubernetes; the Azure Workload Identity webhook sets them): the service-account token is exchanged at Microsoft Entra ID for an ARM token",
    group: "credentials",
  },
  {
    names: ["AZURE_CLIENT_ID"],
    default: "",
    meaning: "with managed identity, the user-assigned identity to ask for (else the system-assigned one)",
    group: "credentials",
  },
  {
    names: ["AZURE_AUTHORITY_HOST"],
    default: "`https://login.microsoftonline.com`",
    meaning: "Microsoft Entra ID's address for the service principal and workload identity (other clouds)",
    group: "credentials",
  },
  {
    names: ["STACKWARDEN_STATE_URL"],
    default: "(local files under `.stackwarden/`)",
    meaning:
      "where locks, audit trails, probe results and watcher state live (`--state-url` wins): `file:DIR`, a Blob Storage container URL (with a SAS in its query, or not), or Azurite's path-style URL",
    group: "state",
  },
  {
    names: ["STACKWARDEN_STATE_ACCOUNT_KEY"],
    default: "",
    meaning:
      "the storage account's key (base64, as the portal shows it; Azurite's is its published development key), for a state URL without a SAS; never shown",
    group: "state",
  },
  {
    names: ["STACKWARDEN_STATE_TIMEOUT_MS"],
    default: "`5000` (at most a quarter of the lease)",
    meaning: "each Blob Storage request's client-side deadline per try, in ms (100 to a quarter of the lease)",
    group: "state",
  },
  {
    names: ["STACKWARDEN_LEASE_SECONDS"],
    default: "`30`",
    meaning:
      "a Blob Storage lock's lease, in s (15 to 60); renewed every third of it, given up half of it after its last renewal that worked",
    group: "state",
  },
  {
    names: ["STACKWARDEN_LOCK_DIR"],
    default: "`.stackwarden/locks`",
    meaning: "per-stack apply locks (`--lock-dir`) when the state is local files",
    group: "state",
  },
  {
    names: ["STACKWARDEN_AUDIT_DIR"],
    default: "`.stackwarden/audit`",
    meaning: "per-stack audit trails (`--audit-dir`) when the state is local files",
    group: "state",
  },
  {
    names: ["STACKWARDEN_PROBE_DIR"],
    default: "`.stackwarden/probes`",
    meaning: "each stack's last probe results, read by `check` (`--probe-dir`) when the state is local files",
    group: "state",
  },
  {
    names: ["STACKWARDEN_STATUS_TOKEN"],
    default: "",
    meaning:
      "`watch`'s status page and API token (`--status-token` wins): required on any address but loopback, at least 16 characters; every request but `/healthz` and `/readyz` must carry it; never shown",
    group: "watcher",
  },
  {
    names: ["STACKWARDEN_NOTIFY_SECRET"],
    default: "",
    meaning:
      "the Standard Webhooks secret (`whsec_…`) `watch --notify` signs its CloudEvents with, and `events verify` checks them with; never shown",
    group: "watcher",
  },
  {
    names: ["STACKWARDEN_CAMPAIGN_MS"],
    default: "",
    meaning: "`watch`: milliseconds since a fault campaign began, stamped on the replica's log lines (set by `npm run chaos:kill`)",
    group: "watcher",
    internal: true,
  },
  {
    names: ["STACKWARDEN_HOME"],
    default: "`..` of the plugin's directory for `dist/`; for state, the nearest directory above it that holds `Pulumi.yaml`",
    meaning:
      "the project whose `dist/` the Pulumi dynamic providers load (when Pulumi runs them elsewhere than `stacks/`), and whose `.stackwarden/` holds the state of their writes unless `STACKWARDEN_STATE_URL` says otherwise",
    group: "pulumi",
  },
  {
    names: ["STACKWARDEN_LOCK_TIMEOUT"],
    default: "`0`",
    meaning:
      "how long a plain `pulumi up`'s TDE write waits for a stack lock another process holds (`30s`, `5m`); `0` refuses at once, naming the holder",
    group: "pulumi",
  },
  {
    names: ["STACKWARDEN_LOCK_HELD"],
    default: "",
    meaning:
      "set by `apply --engine pulumi` for the `pulumi up` it runs (who holds the stack's lock: stack, pid, host, since); the TDE provider then writes under that holder's lock",
    group: "pulumi",
    internal: true,
  },
  {
    names: ["PULUMI_BACKEND_URL"],
    default: "`file://~/.pulumi-local`",
    meaning: "the state backend of `apply --engine pulumi`",
    group: "pulumi",
  },
  {
    names: ["PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE"],
    default: "",
    meaning: "required by `apply --engine pulumi` with a `file://` backend (it encrypts stack secrets with it); never shown",
    group: "pulumi",
  },
  {
    names: ["PULUMI_SKIP_UPDATE_CHECK"],
    default: "`true` (for the `pulumi` stackwarden runs)",
    meaning: "passed on to the Pulumi CLI that `apply --engine pulumi` runs",
    group: "pulumi",
  },
  {
    names: ["STACKWARDEN_CACHE_DIR"],
    default: "`~/.cache/stackwarden`",
    meaning:
      "where the Pulumi CLI, Node (`npm run node:install`), actionlint, the compiled operator CRD validator and the scan cache (`scans/`) are kept",
    group: "local",
  },
  {
    names: ["STACKWARDEN_SCAN_CACHE"],
    default: "on",
    meaning: "`off`: every artifact is uploaded and scanned again",
    group: "local",
  },
  {
    names: ["STACKWARDEN_SCAN_CACHE_MAX_BYTES"],
    default: "`64M`",
    meaning: "the scan cache's bound (bytes, or `K`, `M`, `G`); the least recently used entries go first",
    group: "local",
  },
  {
    names: ["STACKWARDEN_LOG"],
    default: "",
    meaning:
      "`warn` (retries, schema drift, odd resources kept) or `debug` (every request), on stderr, redacted; without it a terminal still gets one line per retried cause",
    group: "local",
  },
  {
    names: ["STACKWARDEN_OUTLIVE_PARENT"],
    default: "",
    meaning: "`1`: `emulator` and `watch` keep running when the process that started them exits (by default they stop, as on SIGTERM)",
    group: "local",
  },
  {
    names: ["STACKWARDEN_EMULATOR_FROM_FLAG"],
    default: "",
    meaning: "set by `--emulator URL` beside `STACKWARDEN_EMULATOR`, so that an error names the flag rather than the variable",
    group: "endpoints",
    internal: true,
  },
];
