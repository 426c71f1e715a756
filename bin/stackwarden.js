#!/usr/bin/env node
"use strict";
// The CLI is compiled by `npm run build` (run by `prepare` on `npm ci`).
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
