#!/usr/bin/env node
// Regenerates the tables of docs/reference.md (commands and flags, environment variables, error
// codes, watcher condition reasons, rules, metrics) from the code's own declarations, in the
// compiled dist/ (`npm run docs:reference` builds first). The prose between the tables is kept as
// written. test/docs/reference-tables.test.ts fails when the checked-in file differs.
//
//   node scripts/reference-tables.js [--check]
//
// --check writes nothing and exits 1 when the file is out of date.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const root = path.join(__dirname, "..");
const file = path.join(root, "docs", "reference.md");
const { fillGeneratedSections, REGENERATE_COMMAND } = require(
  path.join(root, "dist", "src", "interfaces", "cli", "reference", "reference-document.js"),
);

(async () => {
  const before = fs.readFileSync(file, "utf8");
  const after = await fillGeneratedSections(before);
  if (process.argv.includes("--check")) {
    if (after !== before) {
      process.stderr.write(`reference-tables: docs/reference.md is out of date: run ${REGENERATE_COMMAND}\n`);
      process.exit(1);
    }
    return;
  }
  if (after !== before) fs.writeFileSync(file, after);
  process.stdout.write(`docs/reference.md ${after === before ? "was up to date" : "regenerated"}\n`);
})().catch((e) => {
  process.stderr.write(`reference-tables: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
