#!/usr/bin/env node
// Writes the excerpt of a Pulumi provider schema that stackwarden's policy pack reads (issue 43):
// the resources named in a token list, with their inputProperties, properties, required,
// requiredInputs and aliases, and every type they reference (transitively, through "#/types/…" refs).
//
//   node scripts/pulumi-schema-excerpt.js <schema> <tokens.txt> <out.json> [--version V] [--description TEXT]
//
// <schema> is the provider's full schema, read from disk (nothing is downloaded):
//   * a schema.json file, as `pulumi package get-schema azure-native` prints it or as a provider
//     repository commits it (pulumi-azure: provider/cmd/pulumi-resource-azure/schema.json);
//   * or a directory holding the same schema split one document per file, the layout of
//     danielrbradley/pulumi-azure-native-schema (base.yaml for the package, then
//     <module>/resources/<Name>.yaml and <module>/types/<Name>.yaml, each with its `$token`).
// <tokens.txt> lists the resource tokens, one a line (# comments and blank lines are skipped).
// --version sets the excerpt's version when the schema has none (a split export carries none).
// --description replaces the package description (say where the excerpt came from).
//
// The output is a schema document itself ({ name, version, description, resources, types }, keys
// sorted), so anything that reads a Pulumi schema reads the excerpt. Errors are one line, exit 1.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

/** The resource members the excerpt keeps; a resource's description (markdown examples, kilobytes) is left out. */
const RESOURCE_KEYS = ["inputProperties", "properties", "required", "requiredInputs", "aliases"];

function fail(message) {
  process.stderr.write(`pulumi-schema-excerpt: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const positional = [];
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--version" || arg === "--description") {
      if (i + 1 >= argv.length) fail(`${arg} needs a value`);
      options[arg.slice(2)] = argv[++i];
    } else if (arg.startsWith("--")) fail(`unknown option ${arg}`);
    else positional.push(arg);
  }
  if (positional.length !== 3)
    fail("usage: pulumi-schema-excerpt.js <schema.json | split-schema dir> <tokens.txt> <out.json> [--version V] [--description TEXT]");
  return { schemaPath: positional[0], tokensPath: positional[1], outPath: positional[2], ...options };
}

/** Every *.yaml file under dir, depth first, sorted (a split export has tens of thousands). */
function yamlFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...yamlFiles(full));
    else if (entry.name.endsWith(".yaml")) out.push(full);
  }
  return out;
}

/** A split schema directory read back into one schema document (resources and types; functions are not needed). */
function readSplitSchema(dir) {
  const yaml = require("js-yaml");
  const load = (file) => {
    try {
      return yaml.load(fs.readFileSync(file, "utf8"));
    } catch (e) {
      fail(`${file}: not YAML (${e.message.split("\n")[0]})`);
    }
  };
  const base = fs.existsSync(path.join(dir, "base.yaml")) ? load(path.join(dir, "base.yaml")) : undefined;
  if (!base || typeof base.name !== "string") fail(`${dir}: no base.yaml naming the package; not a split schema directory`);
  const schema = { ...base, resources: {}, types: {} };
  for (const file of yamlFiles(dir)) {
    const kind = path.basename(path.dirname(file));
    if (kind !== "resources" && kind !== "types") continue;
    const doc = load(file);
    if (!doc || typeof doc.$token !== "string") fail(`${file}: no $token`);
    const { $token, ...body } = doc;
    schema[kind][$token] = body;
  }
  return schema;
}

function readSchema(schemaPath) {
  let stat;
  try {
    stat = fs.statSync(schemaPath);
  } catch {
    fail(`${schemaPath}: no such file or directory`);
  }
  if (stat.isDirectory()) return readSplitSchema(schemaPath);
  let schema;
  try {
    schema = JSON.parse(fs.readFileSync(schemaPath, "utf8"));
  } catch (e) {
    fail(`${schemaPath}: not JSON (${e.message})`);
  }
  if (!schema || typeof schema.name !== "string" || typeof schema.resources !== "object")
    fail(`${schemaPath}: not a Pulumi package schema (no name or resources)`);
  return schema;
}

function readTokens(tokensPath) {
  let text;
  try {
    text = fs.readFileSync(tokensPath, "utf8");
  } catch {
    fail(`${tokensPath}: cannot read the token list`);
  }
  const tokens = text
    .split("\n")
    .map((l) => l.replace(/#.*/, "").trim())
    .filter(Boolean);
  if (!tokens.length) fail(`${tokensPath}: lists no token`);
  return tokens;
}

/** The type tokens that `#/types/…` refs anywhere inside value name. */
function typeRefs(value, into = new Set()) {
  if (Array.isArray(value)) for (const v of value) typeRefs(v, into);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith("#/types/")) into.add(decodeURIComponent(v.slice("#/types/".length)));
      else typeRefs(v, into);
    }
  }
  return into;
}

/** The object with its keys sorted, recursively (arrays keep their order): a stable, diffable file. */
function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted(value[k])]),
    );
  }
  return value;
}

function excerpt(schema, tokens, options) {
  const resources = {};
  for (const token of tokens) {
    const resource = schema.resources[token];
    if (!resource) fail(`resource ${token} is not in the schema`);
    resources[token] = Object.fromEntries(RESOURCE_KEYS.filter((k) => resource[k] !== undefined).map((k) => [k, resource[k]]));
  }
  const types = {};
  const pending = [...typeRefs(resources)];
  while (pending.length) {
    const token = pending.pop();
    if (types[token]) continue;
    const type = (schema.types ?? {})[token];
    if (!type) fail(`type ${token} (referenced by the excerpt) is not in the schema`);
    types[token] = type;
    for (const ref of typeRefs(type)) if (!types[ref]) pending.push(ref);
  }
  const version = options.version ?? schema.version;
  if (!version) fail("the schema declares no version: give --version");
  return sorted({ name: schema.name, version, description: options.description ?? schema.description, resources, types });
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const doc = excerpt(readSchema(args.schemaPath), readTokens(args.tokensPath), args);
  fs.mkdirSync(path.dirname(args.outPath), { recursive: true });
  const tmp = `${args.outPath}.tmp.${process.pid}`;
  fs.writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`);
  fs.renameSync(tmp, args.outPath);
  process.stdout.write(`${args.outPath}: ${Object.keys(doc.resources).length} resources, ${Object.keys(doc.types).length} types\n`);
}

main();
