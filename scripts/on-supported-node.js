#!/usr/bin/env node
"use strict";
// npm start and npm test: node scripts/on-supported-node.js COMMAND [ARGS…]
//
// Runs COMMAND on a supported Node (22 or later, engines.node). When the node running this script
// is older (a fresh machine whose own Node is 20), the project's pinned Node is fetched as
// `npm run node:install` does (scripts/node-install.sh, cached after the first time), one line
// says so, and COMMAND runs with that node's bin directory first on PATH: `node`, and npm, npx and
// vitest (started by `#!/usr/bin/env node`) all run on it, and so does the Pulumi language host.
// So the README's first block, `npm ci && npm start` and `npm ci && npm test`, works as written on
// such a machine. On a supported Node, COMMAND runs as it is.
//
// Plain CommonJS of the oldest syntax: this file must run on the Node it replaces.
const { spawnSync } = require("node:child_process");
const path = require("node:path");

const MIN_MAJOR = 22;
const command = process.argv.slice(2);
if (command.length === 0) {
  process.stderr.write("on-supported-node: usage: node scripts/on-supported-node.js COMMAND [ARGS...]\n");
  process.exit(2);
}

const major = Number(process.versions.node.split(".")[0]);
let env = process.env;
if (major < MIN_MAJOR) {
  const install = spawnSync("bash", [path.join(__dirname, "node-install.sh")], { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  const bin = (install.stdout || "").trim().split("\n").pop();
  if (install.status !== 0 || !bin) {
    process.stderr.write(install.stderr || "");
    process.stderr.write(
      `stackwarden: SW_RUNTIME_UNSUPPORTED: Node ${process.version} is below ${MIN_MAJOR} and the pinned Node could not be fetched (npm run node:install failed, above)\n`,
    );
    process.exit(1);
  }
  process.stderr.write(
    `stackwarden: Node ${process.version} is below ${MIN_MAJOR}: running \`${command.join(" ")}\` on the project's pinned Node in ${bin} (npm run node:install; put it first on PATH to skip this)\n`,
  );
  env = Object.assign({}, process.env, { PATH: `${bin}${path.delimiter}${process.env.PATH || ""}` });
}

const run = spawnSync(command[0], command.slice(1), { stdio: "inherit", env });
if (run.error) {
  process.stderr.write(`on-supported-node: cannot run ${command[0]}: ${run.error.message}\n`);
  process.exit(1);
}
// A command ended by a signal ends this one the same way (npm reports it as it would have).
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status === null ? 1 : run.status);
