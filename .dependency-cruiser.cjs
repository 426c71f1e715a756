// The layering, as rules (see README, Architecture). `npm test` runs them over src/, providers/,
// policies/ and stacks/; test/layering.test.ts also proves they catch an upward import.
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
      name: "no-folder-cycles-in-core",
      severity: "error",
      comment: "Folders of src/ depend on each other one way only.",
      scope: "folder",
      from: { path: "^src/" },
      to: { path: "^src/", circular: true },
    },
    {
      name: "no-module-cycles",
      severity: "error",
      comment: "No module imports itself through others.",
      from: { path: "^(src|providers|policies|stacks)/" },
      to: { circular: true },
    },
    {
      name: "compliance-is-pure",
      severity: "error",
      comment: "Rules are pure functions of plain data: no client, transport, file system or other I/O (ARM ids are pure too).",
      from: { path: "^src/domain/compliance/" },
      to: { pathNot: "^src/domain/compliance/|^src/platform/arm/(resource-id|provider-namespace)[.]ts$" },
    },
    {
      name: "clients-ship-no-emulator",
      severity: "error",
      comment: "Clients, transport and credentials never import the emulator (it imports them).",
      from: { path: "^src/(services|platform|domain)/" },
      to: { path: "^src/emulator/" },
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
