// The layering, as rules (see docs/contributing.md, Architecture). `npm test` runs them over src/, providers/,
// policies/ and stacks/; test/layering proves each rule catches a violating fixture.
//
//   interfaces   src/interfaces (cli, watch, pulumi, gitops) + providers/ policies/ stacks/
//   use cases    src/usecases
//   domain       src/domain
//   clients      src/clients (the one client set)
//   services     src/services (one folder per API)
//   platform     src/platform
//   apart        src/emulator, reached only through src/clients and the emulator command
//
// Arrows point down only. Type-only imports do not count as module cycles: a rule names the type of
// the facts it judges, which its fact kind declares (the kind's code never imports the rule). At
// folder level dependency-cruiser counts every import, type-only ones too: so what rules and fact
// kinds both name (the facts' shared types, FactMap) is a folder of its own, src/domain/facts/model,
// below both.
const VALUE = { dependencyTypesNot: ["type-only"] };

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "core-never-imports-adapters",
      severity: "error",
      comment: "src/ is the Pulumi-free core: providers/, policies/ and stacks/ are thin adapters over it, never the reverse.",
      from: { path: "^src/" },
      to: { path: "^(providers|policies|stacks)/" },
    },
    {
      name: "platform-is-the-bottom",
      severity: "error",
      comment:
        "The platform (http, auth, arm, settings, yaml, schemas, executables, programs) knows no service, client, domain or anything above.",
      from: { path: "^src/platform/" },
      to: { path: "^src/(services|clients|domain|usecases|interfaces|emulator)/" },
    },
    {
      name: "services-sit-on-the-platform",
      severity: "error",
      comment: "A service's types and client use the platform only.",
      from: { path: "^src/services/" },
      to: { path: "^src/(clients|domain|usecases|interfaces|emulator)/" },
    },
    {
      name: "clients-below-the-domain",
      severity: "error",
      comment: "The client set builds clients; it knows nothing of what they are used for.",
      from: { path: "^src/clients/" },
      to: { path: "^src/(domain|usecases|interfaces)/" },
    },
    {
      name: "domain-never-imports-clients",
      severity: "error",
      comment:
        "The domain declares what its reads need (src/domain/facts/fact-clients.ts, naming the services' client types) and the client set satisfies it: no import of src/clients/, not even a type-only one.",
      from: { path: "^src/domain/" },
      to: { path: "^src/clients/" },
    },
    {
      name: "domain-below-use-cases",
      severity: "error",
      comment: "The domain (stack file, rules, fact kinds, reconcile, ...) never calls a use case or an interface.",
      from: { path: "^src/domain/" },
      to: { path: "^src/(usecases|interfaces)/" },
    },
    {
      name: "use-cases-below-interfaces",
      severity: "error",
      comment: "A use case returns data; how it is shown (CLI, watch server, Pulumi) is the interfaces' business.",
      from: { path: "^src/usecases/" },
      to: { path: "^src/interfaces/" },
    },
    {
      name: "emulator-apart",
      severity: "error",
      comment:
        "The emulator implements the services' APIs; it uses the platform and the services' types, nothing of the product above them.",
      from: { path: "^src/emulator/" },
      to: { path: "^src/(clients|domain|usecases|interfaces)/" },
    },
    {
      name: "only-the-client-set-starts-the-emulator",
      severity: "error",
      comment:
        "Clients never ship emulator code: only src/clients (embedded services, npm start's emulator) and the emulator command import it.",
      from: {
        path: "^(src|providers|policies|stacks)/",
        pathNot: "^src/(emulator|clients)/|^src/interfaces/cli/commands/emulator-command[.]ts$",
      },
      to: { path: "^src/emulator/" },
    },
    {
      name: "one-place-builds-clients",
      severity: "error",
      comment: "Service clients are made by the client set (src/clients); everyone else takes them from it (type imports are fine).",
      from: { path: "^(src|providers|policies|stacks)/", pathNot: "^src/(clients|services)/" },
      to: { path: "^src/services/[^/]+/client[.]ts$", ...VALUE },
    },
    {
      name: "commands-never-import-commands",
      severity: "error",
      comment: "A command parses flags, calls one use case and renders; what two commands share lives below them.",
      from: { path: "^src/interfaces/cli/commands/" },
      to: { path: "^src/interfaces/cli/commands/" },
    },
    // The domain is pure: it computes over data and calls the ports it declares (src/domain/state,
    // the clients' narrow interfaces, the artifact gate's ArtifactFiles), never the machine itself.
    // The rules below name what "the machine" is. Pure helpers stay allowed: node:path (path math),
    // node:crypto (hashing, random ids), node:timers/promises and node:events (waiting and
    // listeners: time, not I/O), node:perf_hooks (measuring), libraries that parse (yaml, ajv,
    // fast-xml-parser).
    {
      name: "domain-touches-no-files",
      severity: "error",
      comment:
        "The domain reads and writes no file, itself or through the platform's file modules: its state goes through the ports of src/domain/state (files and Blob Storage are adapters in src/platform/state), the project's files (stack files, rule files, artifacts) are read by the use cases and interfaces (src/platform/files) and handed over, or reached through a port the domain declares (ArtifactFiles). platform/files/path-glob.ts is path math (patterns, the shown path) and allowed. The artifact fact kind gets the gate's ports through FactClients (artifactFiles, scanCacheStorage).",
      from: { path: "^src/domain/" },
      to: {
        path: "^(node:)?fs(/promises)?$|^src/platform/files/|^src/platform/executables/byte-source[.]ts$",
        pathNot: "^src/platform/files/path-glob[.]ts$",
      },
    },
    {
      name: "domain-starts-no-processes",
      severity: "error",
      comment:
        "No child process, worker or cluster in the domain (git, the Pulumi engine, Azurite are src/platform/programs, started by the use cases).",
      from: { path: "^src/domain/" },
      to: { path: "^(node:)?(child_process|worker_threads|cluster)$|^src/platform/programs/" },
    },
    {
      name: "domain-opens-no-connections",
      severity: "error",
      comment:
        "No socket, HTTP, DNS or network client library in the domain: every call to a service goes through a port the domain is handed (a client's narrow interface, a state store).",
      from: { path: "^src/domain/" },
      to: {
        path: "^(node:)?(net|http|https|http2|tls|dgram|dns)(/promises)?$|(^|/)node_modules/(undici|@azure/storage-blob|@azure/identity)/",
      },
    },
    {
      name: "domain-asks-no-machine",
      severity: "error",
      comment:
        "node:os is the machine's identity and places (hostname, home and temporary directories, the user): who holds a lock, who applies and where the scan cache lives are told to the domain (platform/process-identity.ts, the use cases), so a test or a second process can tell it otherwise.",
      from: { path: "^src/domain/" },
      to: { path: "^(node:)?os$" },
    },
    {
      name: "domain-names-no-service-client",
      severity: "error",
      comment:
        "The domain names no concrete client class, not even by a type-only import: it declares the few methods it calls as a narrow interface, typed with the services' wire types, which the clients satisfy structurally. The services' other modules (wire types from the specs, ids, catalogues) are what the domain reasons about and stay allowed: copying them into the domain would be a second copy of the spec.",
      from: { path: "^src/domain/" },
      to: { path: "^src/services/[^/]+/[a-z-]*client[.]ts$|^src/platform/arm/arm-(client|transport|resource-reader)[.]ts$" },
    },
    {
      name: "domain-knows-no-http",
      severity: "error",
      comment:
        "The transport, its ApiError and its classification of statuses are the HTTP layer's: the domain reads a failed call as a CallFailure (src/platform/errors/call-failure.ts, which ApiError is). Redaction (text in, text out) lives outside it, in src/platform/redaction.ts.",
      from: { path: "^src/domain/" },
      to: { path: "^src/platform/http/" },
    },
    {
      name: "domain-knows-no-state-adapter",
      severity: "error",
      comment:
        "The domain's state ports (src/domain/state/state-ports.ts) are satisfied by the adapters of src/platform/state/files and src/platform/state/blob; the domain names neither, not even a type (what ports and adapters share, as LockHolder, lives in src/platform/state/ itself).",
      from: { path: "^src/domain/" },
      to: { path: "^src/platform/state/(files|blob)/" },
    },
    {
      name: "compliance-is-pure",
      severity: "error",
      comment:
        "Rules are pure functions of plain data: no client, transport, file system or other I/O. They may name their facts' types (type-only imports) and read ARM ids and UNKNOWN (src/platform/unknown-value.ts).",
      from: { path: "^src/domain/compliance/" },
      to: {
        pathNot:
          "^src/domain/compliance/|^src/platform/arm/(resource-id|provider-namespace)[.]ts$|^src/platform/unknown-value[.]ts$|^src/platform/yaml/source-location[.]ts$",
        ...VALUE,
      },
    },
    {
      name: "no-folder-cycles-in-core",
      severity: "error",
      comment: "Folders of src/ depend on each other one way only (type-only imports aside).",
      scope: "folder",
      from: { path: "^src/" },
      to: { path: "^src/", circular: true, viaOnly: VALUE },
    },
    {
      name: "no-module-cycles",
      severity: "error",
      comment: "No module imports itself through others.",
      from: { path: "^(src|providers|policies|stacks)/" },
      to: { circular: true, viaOnly: VALUE },
    },
  ],
  options: {
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules)/" },
    moduleSystems: ["cjs", "es6"],
  },
};
