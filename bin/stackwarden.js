#!/usr/bin/env node
"use strict";
// The CLI is compiled by `npm run build` (run by `prepare` on `npm ci`).
// First, the runtime: below Node 22 every command refuses (SW_RUNTIME_UNSUPPORTED) before it loads anything else.
let refusal;
try {
  refusal = require("../dist/src/platform/runtime-support.js").runtimeRefusal(process.version, process.argv.slice(2));
} catch (err) {
  if (!err || err.code !== "MODULE_NOT_FOUND") throw err;
}
if (refusal) {
  process.stderr.write(`${refusal.line}\n`);
  if (refusal.json) process.stdout.write(`${refusal.json}\n`);
  process.exit(1);
}
let main;
try {
  main = require("../dist/src/interfaces/cli/main.js").main;
} catch (err) {
  if (err && err.code === "MODULE_NOT_FOUND") {
    process.stderr.write("stackwarden: not built yet; run `npm run build` (or `npm ci`) in the project directory\n");
    process.exit(1);
  }
  throw err;
}
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
