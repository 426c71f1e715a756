#!/usr/bin/env node
// Rebuilds the schema entries of a Terraform-bridged Pulumi provider (pulumi-azure) from the Java
// SDK the provider's repository commits (sdk/java/src/main/java/com/pulumi/<pkg>/), for the
// resources named in a token list and the types they reference. Used when the provider's
// schema.json cannot be read (pulumi-azure's is over the size our repository snapshots keep);
// when it can, give that file to scripts/pulumi-schema-excerpt.js instead. See
// specs/pulumi-azure/SOURCES.md.
//
//   node scripts/pulumi-schema-from-java-sdk.js <java package dir> <tokens.txt> <out.json> --name azure --version V
//
// pulumi-language-java writes every schema fact this needs explicitly, in a fixed form:
//   * the resource token:            @ResourceType(type="azure:mssql/server:Server")
//   * an output and whether it may be absent:
//                                    @Export(name="keyId", refs={String.class}, tree="[0]")
//                                    private Output</* @Nullable */ String> keyId;
//   * an input and whether it is required (in <Resource>Args.java and inputs/<Type>Args.java):
//                                    @Import(name="serverId", required=true)
//                                    private Output<String> serverId;
//   * a nested type's fields:        outputs/<Type>.java, `private @Nullable List<String> identityIds;`
//   * secrets and aliases:           .additionalSecretOutputs(List.of("…")), Alias.builder().type("…")
//   * integer or number:             Integer or Double
// Descriptions are the Javadoc of each field. Type tokens follow the bridge's form for object types,
// `<pkg>:<module>/<Type>:<Type>` (the SDK does not spell them out).
// The output is a schema document ({ name, version, resources, types }); errors are one line, exit 1.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

function fail(message) {
  process.stderr.write(`pulumi-schema-from-java-sdk: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const positional = [];
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--name" || arg === "--version") {
      if (i + 1 >= argv.length) fail(`${arg} needs a value`);
      options[arg.slice(2)] = argv[++i];
    } else if (arg.startsWith("--")) fail(`unknown option ${arg}`);
    else positional.push(arg);
  }
  if (positional.length !== 3 || !options.name || !options.version) {
    fail("usage: pulumi-schema-from-java-sdk.js <java package dir> <tokens.txt> <out.json> --name PKG --version V");
  }
  return { root: positional[0], tokensPath: positional[1], outPath: positional[2], ...options };
}

function readTokens(tokensPath) {
  let text;
  try {
    text = fs.readFileSync(tokensPath, "utf8");
  } catch {
    fail(`${tokensPath}: cannot read the token list`);
  }
  return text
    .split("\n")
    .map((l) => l.replace(/#.*/, "").trim())
    .filter(Boolean);
}

function read(file) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Javadoc text back to the schema's markdown: the comment markers, "@return " and HTML escapes removed. */
function docText(javadoc) {
  const text = javadoc
    .replace(/^\/\*\*|\*\/$/g, "")
    .split("\n")
    .map((l) => l.replace(/^\s*\* ?/, ""))
    .join("\n")
    .trim()
    .replace(/^@return /, "")
    .replace(/^@deprecated\n[\s\S]*/, "")
    .replace(/&gt;/g, ">")
    .replace(/&lt;/g, "<")
    .replace(/&#39;/g, "'")
    .replace(/&#34;/g, '"')
    .replace(/&#64;/g, "@")
    .replace(/&#42;/g, "*")
    .replace(/&#47;/g, "/")
    .replace(/&amp;/g, "&")
    .trim();
  return text || undefined;
}

/** Splits "A,B<C,D>" at its top-level commas. */
function splitTopLevel(s) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "<") depth++;
    else if (s[i] === ">") depth--;
    else if (s[i] === "," && depth === 0) {
      parts.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(s.slice(start).trim());
  return parts;
}

/** The package a class name is imported from in a Java file (its module), e.g. "mssql". */
function importModule(source, className, pkg) {
  const m = source.match(new RegExp(`^import com\\.pulumi\\.${pkg}\\.([\\w.]+)\\.(?:inputs|outputs)\\.${className};`, "m"));
  return m ? m[1].replace(/\./g, "/") : undefined;
}

/**
 * The schema type of a Java type: primitives, List<…>, Map<String,…>, and object types as refs.
 * `refs` collects the object types met ("module/Name").
 */
function typeSpec(javaType, source, ctx, refs) {
  const t = javaType.replace(/\/\* @Nullable \*\/\s*/g, "").trim();
  const generic = t.match(/^(\w+)<(.*)>$/);
  if (generic) {
    const args = splitTopLevel(generic[2]);
    if (generic[1] === "List") return { type: "array", items: typeSpec(args[0], source, ctx, refs) };
    if (generic[1] === "Map") return { type: "object", additionalProperties: typeSpec(args[1], source, ctx, refs) };
    fail(`${ctx.file}: unsupported generic type ${t}`);
  }
  switch (t) {
    case "String":
      return { type: "string" };
    case "Integer":
      return { type: "integer" };
    case "Double":
      return { type: "number" };
    case "Boolean":
      return { type: "boolean" };
    case "Object":
      return { $ref: "pulumi.json#/Any" };
  }
  const name = t.replace(/Args$/, "");
  const module = importModule(source, t, ctx.pkg) ?? ctx.module;
  refs.add(`${module}/${name}`);
  return { type: "object", $ref: `#/types/${ctx.pkg}:${module}/${name}:${name}` };
}

/** The annotated fields of a generated class: `@Import`/`@Export` ones, or plain private fields of an output type. */
function fields(source, annotation) {
  const out = [];
  const re =
    annotation === "field"
      ? /(\/\*\*(?:(?!\*\/)[\s\S])*\*\/)?\s*\n\s*private (@Nullable )?([\w<>, ]+?) (\w+);/g
      : new RegExp(
          `(\\/\\*\\*(?:(?!\\*\\/)[\\s\\S])*\\*\\/)?\\s*(?:@Deprecated \\/\\* ((?:(?!\\*\\/)[\\s\\S])*) \\*\\/\\s*)?@${annotation}\\(name="(\\w+)"([^)]*)\\)\\s*private (@Nullable )?Output<(.+?)> \\w+;`,
          "g",
        );
  for (const m of source.matchAll(re)) {
    if (annotation === "field") out.push({ doc: m[1], nullable: Boolean(m[2]), javaType: m[3], name: m[4] });
    else
      out.push({
        doc: m[1],
        deprecation: m[2],
        name: m[3],
        required: /required=true/.test(m[4]),
        nullable: Boolean(m[5]) || m[6].startsWith("/* @Nullable */"),
        javaType: m[6],
      });
  }
  return out;
}

function property(f, source, ctx, refs) {
  const spec = typeSpec(f.javaType, source, ctx, refs);
  const description = f.doc ? docText(f.doc) : undefined;
  return { ...spec, ...(description ? { description } : {}), ...(f.deprecation ? { deprecationMessage: f.deprecation } : {}) };
}

function secretNames(source) {
  const m = source.match(/\.additionalSecretOutputs\(List\.of\(([^)]*)\)\)/);
  return new Set(m ? [...m[1].matchAll(/"(\w+)"/g)].map((x) => x[1]) : []);
}

function resource(token, args, refs) {
  const m = token.match(/^(\w[\w-]*):([\w/]+)\/\w+:(\w+)$/);
  if (!m || m[1] !== args.name) fail(`${token}: not a ${args.name}:<module>/<name>:<Name> resource token`);
  const [, pkg, module, name] = m;
  const file = path.join(args.root, module, `${name}.java`);
  const source = read(file);
  if (!source) fail(`${file}: missing (resource ${token})`);
  if (!source.includes(`@ResourceType(type="${token}")`)) fail(`${file}: is not the class of ${token}`);
  const argsFile = path.join(args.root, module, `${name}Args.java`);
  const argsSource = read(argsFile);
  if (!argsSource) fail(`${argsFile}: missing (inputs of ${token})`);
  const secrets = secretNames(source);
  const mark = (p, n) => (secrets.has(n) ? { ...p, secret: true } : p);
  const ctx = { pkg, module, file };
  const outputs = fields(source, "Export");
  const inputs = fields(argsSource, "Import");
  const aliases = [...source.matchAll(/Alias\.builder\(\)\.type\("([^"]+)"\)/g)].map((a) => ({ type: a[1] }));
  return {
    properties: Object.fromEntries(outputs.map((f) => [f.name, mark(property(f, source, ctx, refs), f.name)])),
    required: outputs.filter((f) => !f.nullable).map((f) => f.name),
    inputProperties: Object.fromEntries(
      inputs.map((f) => [f.name, mark(property(f, argsSource, { ...ctx, file: argsFile }, refs), f.name)]),
    ),
    requiredInputs: inputs.filter((f) => f.required).map((f) => f.name),
    ...(aliases.length ? { aliases } : {}),
  };
}

/**
 * An object type from inputs/<Name>Args.java (names, required inputs) merged with
 * outputs/<Name>.java (fields only the provider sets, such as an identity's principalId).
 */
function objectType(ref, args, refs) {
  const [module, name] = [path.dirname(ref), path.basename(ref)];
  const inFile = path.join(args.root, module, "inputs", `${name}Args.java`);
  const outFile = path.join(args.root, module, "outputs", `${name}.java`);
  const inSource = read(inFile);
  const outSource = read(outFile);
  if (!inSource && !outSource) fail(`type ${module}/${name}: neither ${inFile} nor ${outFile} exists`);
  const ctx = { pkg: args.name, module };
  const properties = {};
  let required = [];
  if (outSource) {
    const outFields = fields(outSource.slice(0, outSource.indexOf(`private ${name}() {}`)), "field");
    for (const f of outFields) properties[f.name] = property(f, outSource, { ...ctx, file: outFile }, refs);
    required = outFields.filter((f) => !f.nullable).map((f) => f.name);
  }
  if (inSource) {
    const inFields = fields(inSource, "Import");
    for (const f of inFields) properties[f.name] ??= property(f, inSource, { ...ctx, file: inFile }, refs);
    required = inFields.filter((f) => f.required).map((f) => f.name);
  }
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const refs = new Set();
  const resources = {};
  for (const token of readTokens(args.tokensPath)) resources[token] = resource(token, args, refs);
  const types = {};
  const done = new Set();
  while (refs.size > done.size) {
    for (const ref of [...refs]) {
      if (done.has(ref)) continue;
      done.add(ref);
      const name = path.basename(ref);
      types[`${args.name}:${ref}:${name}`] = objectType(ref, args, refs);
    }
  }
  const doc = { name: args.name, version: args.version, resources, types };
  fs.writeFileSync(args.outPath, `${JSON.stringify(doc, null, 2)}\n`);
  process.stdout.write(`${args.outPath}: ${Object.keys(resources).length} resources, ${Object.keys(types).length} types\n`);
}

main();
