// The layering, as rules (see README, Architecture). `npm test` runs them over src/, providers/,
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
    {
      name: "domain-touches-no-files",
      severity: "error",
      comment:
        "The domain reads and writes no file itself: its state goes through the ports of src/domain/state (files and Blob Storage are adapters in src/platform/state), the project's own files through src/platform/files.",
      from: { path: "^src/domain/" },
      to: { dependencyTypes: ["core"], path: "^(node:)?fs(/promises)?$" },
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
