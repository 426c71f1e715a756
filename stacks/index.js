"use strict";
// The Pulumi program's entry (Pulumi.yaml: main: stacks/, typescript: false): Pulumi runs compiled
// JavaScript, so nothing is compiled per command. The program is stacks/index.ts, compiled by
// `npm run build` (run by `npm ci`) to dist/stacks/index.js.
const path = require("node:path");
const compiled = path.join(__dirname, "..", "dist", "stacks", "index.js");
try {
  module.exports = require(compiled);
} catch (err) {
  if (err && err.code === "MODULE_NOT_FOUND" && String(err.message).includes(compiled)) {
    throw new Error(
      `stackwarden is not built: ${compiled} is missing; run \`npm run build\` (or \`npm ci\`) in ${path.dirname(__dirname)}`,
      { cause: err },
    );
  }
  throw err;
}
