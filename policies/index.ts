import { enableCompileCache } from "node:module";

// The analyzer is a fresh Node.js process for every `pulumi preview` and `up`, and compiling
// @pulumi/policy, @pulumi/pulumi and the pack's modules was a third of its start (the pack-1000
// bench's profile): Node's on-disk compile cache (os.tmpdir()/node-compile-cache, or
// NODE_COMPILE_CACHE; checked against each file's content) keeps it for the next run. Before any
// other import, so that what they load is cached too; a Node.js without it (before 22.1) skips it.
enableCompileCache?.();

// eslint-disable-next-line @typescript-eslint/no-require-imports -- after the cache is on (imports are hoisted above it)
const { PolicyPack } = require("@pulumi/policy") as typeof import("@pulumi/policy");
// eslint-disable-next-line @typescript-eslint/no-require-imports -- after the cache is on (imports are hoisted above it)
const { policies } = require("./policies") as typeof import("./policies");

// Constructing the pack starts the analyzer's gRPC server, so it happens only here; tests import
// ./policies instead.
new PolicyPack("stackwarden", { policies: policies() });
