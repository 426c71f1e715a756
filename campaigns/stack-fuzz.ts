import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { stringify } from "yaml";
import { main } from "../src/interfaces/cli/main";

/**
 * Property-based fuzzing of stack files: valid stacks, each broken by one generated mutation (a
 * name Azure refuses, a wrong type, an unknown or missing key, a bad enum value, a duplicate, or
 * broken YAML: tabs, duplicate keys, aliases without anchors, cycles, exponential aliases, unclosed
 * flows). Every case must end the same way: exit 1, exactly one line on stderr naming
 * file:line:column inside the file, nothing on stdout, and not one request to any API.
 */

const GUID = "00000000-0000-0000-0000-000000000000";
const lower = "abcdefghijklmnopqrstuvwxyz";
const digits = "0123456789";
const chars = (set: string, min: number, max: number) =>
  fc.array(fc.constantFrom(...set.split("")), { minLength: min, maxLength: max }).map((a) => a.join(""));

/** Names every rule accepts (lower-case letters and digits, with an inner hyphen): a valid stack's building blocks. */
const okName = fc
  .tuple(chars(lower, 1, 1), chars(lower + digits, 0, 6), fc.boolean(), chars(lower + digits, 1, 4))
  .map(([a, b, hyphen, c]) => `${a}${b}${hyphen ? "-" : ""}${c}`);

interface Db {
  resourceGroup: unknown;
  server: unknown;
  database: unknown;
  transparentDataEncryption: unknown;
  serviceObjective?: unknown;
}

interface Doc {
  config: Record<string, unknown>;
}

const validDoc: fc.Arbitrary<Doc> = fc
  .record({
    dbs: fc.array(
      fc.record({
        resourceGroup: okName,
        server: okName,
        database: okName,
        transparentDataEncryption: fc.constantFrom("Enabled", "Disabled"),
        objective: fc.option(fc.constantFrom("S0", "S3", "P1"), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 6 },
    ),
    pools: fc.array(fc.record({ resourceGroup: okName, server: okName, elasticPool: okName }), { maxLength: 2 }),
    batch: fc.option(
      fc.record({
        locations: fc.array(fc.constantFrom("eastus", "westeurope", "northeurope"), { maxLength: 2 }),
        workspaces: fc.array(fc.record({ resourceGroup: okName, workspace: okName, experiments: fc.array(okName, { maxLength: 2 }) }), {
          maxLength: 2,
        }),
      }),
      { nil: undefined },
    ),
  })
  .map(({ dbs, pools, batch }) => {
    const seen = new Set<string>();
    const databases = dbs
      .filter((d) => {
        const k = `${d.resourceGroup}/${d.server}/${d.database}`;
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      })
      .map((d) => ({
        resourceGroup: d.resourceGroup,
        server: d.server,
        database: d.database,
        transparentDataEncryption: d.transparentDataEncryption,
        ...(d.objective ? { serviceObjective: d.objective } : {}),
      }));
    const poolSeen = new Set<string>();
    const elasticPools = pools.filter((p) => {
      const k = `${p.resourceGroup}/${p.server}/${p.elasticPool}`;
      return poolSeen.has(k) ? false : (poolSeen.add(k), true);
    });
    const config: Record<string, unknown> = { "stackwarden:subscriptionId": GUID, "stackwarden:databases": databases };
    if (elasticPools.length) config["stackwarden:elasticPools"] = elasticPools;
    if (batch) config["stackwarden:batch"] = batch;
    config["other:setting"] = "left alone";
    return { config };
  });

/** Values each kind of name refuses, by construction. */
const BAD_NAMES = {
  resourceGroup: fc.oneof(
    okName.map((n) => `${n}]`),
    okName.map((n) => `${n}.`),
    fc.tuple(okName, fc.constantFrom("{", "}", "/", "?", "#", " ", "!", "*", "&", ":", "[", "]", "@", "$")).map(([n, c]) => `${n}${c}x`),
    fc.constant("r".repeat(91)),
    fc.constant(""),
  ),
  server: fc.oneof(
    okName.map((n) => n.toUpperCase() + "X"),
    fc.tuple(okName, fc.constantFrom("{", "_", ".", " ", "/", "é")).map(([n, c]) => `${n}${c}1`),
    okName.map((n) => `-${n}`),
    okName.map((n) => `${n}-`),
    fc.constant("s".repeat(64)),
    fc.constant(""),
  ),
  database: fc.oneof(
    fc.tuple(okName, fc.constantFrom("<", ">", "*", "%", "&", ":", "\\", "/", "?", "\u0001", "\u007f")).map(([n, c]) => `${n}${c}z`),
    okName.map((n) => `${n}.`),
    okName.map((n) => `${n} `),
    fc.constant("d".repeat(129)),
    fc.constant(""),
  ),
  elasticPool: fc.oneof(
    fc.tuple(okName, fc.constantFrom("<", ">", "*", "%", "&", ":", "\\", "/", "?")).map(([n, c]) => `${n}${c}p`),
    okName.map((n) => `${n}.`),
    fc.constant("p".repeat(129)),
  ),
  workspace: fc.oneof(
    fc.tuple(okName, fc.constantFrom(".", " ", "{", "/", "(", "é")).map(([n, c]) => `${n}${c}w`),
    fc.constant("w".repeat(65)),
    fc.constant(""),
  ),
} as const;

const wrongValue = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.boolean(),
  fc.constant(null),
  fc.constant([1, 2]),
  fc.constant({ nested: "map" }),
);

type Mutation = (doc: Doc, text: string) => string;

/** A mutation of the document or of its text that makes it invalid, and what it is, for reports. */
const mutation: fc.Arbitrary<{ what: string; apply: Mutation }> = fc.oneof(
  fc
    .record({ field: fc.constantFrom("resourceGroup", "server", "database"), index: fc.nat(), bad: fc.constant(0) })
    .chain(({ field, index }) =>
      BAD_NAMES[field].map((bad) => ({
        what: `database ${field} ${JSON.stringify(bad)}`,
        apply: (doc: Doc) => {
          const dbs = doc.config["stackwarden:databases"] as Db[];
          dbs[index % dbs.length][field] = bad;
          return stringify(doc);
        },
      })),
    ),
  BAD_NAMES.elasticPool.map((bad) => ({
    what: `elastic pool ${JSON.stringify(bad)}`,
    apply: (doc: Doc) => {
      doc.config["stackwarden:elasticPools"] = [{ resourceGroup: "rg", server: "s1", elasticPool: bad }];
      return stringify(doc);
    },
  })),
  fc.tuple(BAD_NAMES.workspace, fc.constantFrom("workspace", "experiment", "resourceGroup")).map(([bad, where]) => ({
    what: `Batch AI ${where} ${JSON.stringify(bad)}`,
    apply: (doc: Doc) => {
      const ws =
        where === "workspace"
          ? { resourceGroup: "rg-ml", workspace: bad }
          : where === "experiment"
            ? { resourceGroup: "rg-ml", workspace: "ws", experiments: [bad] }
            : { resourceGroup: `${bad}(x)`, workspace: "ws" };
      doc.config["stackwarden:batch"] = { locations: ["eastus"], workspaces: [ws] };
      return stringify(doc);
    },
  })),
  fc
    .tuple(fc.constantFrom("resourceGroup", "server", "database", "transparentDataEncryption", "serviceObjective"), fc.nat(), wrongValue)
    .map(([field, index, value]) => ({
      what: `database ${field} = ${JSON.stringify(value)}`,
      apply: (doc: Doc) => {
        const dbs = doc.config["stackwarden:databases"] as Db[];
        (dbs[index % dbs.length] as unknown as Record<string, unknown>)[field] = value;
        return stringify(doc);
      },
    })),
  fc
    .tuple(
      fc.constantFrom("stackwarden:subscriptionId", "stackwarden:databases", "stackwarden:batch", "stackwarden:elasticPools"),
      wrongValue,
    )
    .map(([key, value]) => ({
      what: `${key} = ${JSON.stringify(value)}`,
      apply: (doc: Doc) => {
        doc.config[key] = key === "stackwarden:batch" && (value === null || typeof value === "object") && !Array.isArray(value) ? 7 : value;
        return stringify(doc);
      },
    })),
  fc.tuple(okName, fc.boolean()).map(([key, inItem]) => ({
    what: `unknown key ${key}${inItem ? " in a database" : ""}`,
    apply: (doc: Doc) => {
      if (inItem) ((doc.config["stackwarden:databases"] as Db[])[0] as unknown as Record<string, unknown>)[`x${key}`] = 1;
      else doc.config[`stackwarden:x${key}`] = "value";
      return stringify(doc);
    },
  })),
  fc.constantFrom("resourceGroup", "server", "database", "transparentDataEncryption", "subscription").map((key) => ({
    what: `missing ${key}`,
    apply: (doc: Doc) => {
      if (key === "subscription") delete doc.config["stackwarden:subscriptionId"];
      else delete ((doc.config["stackwarden:databases"] as Db[])[0] as unknown as Record<string, unknown>)[key];
      return stringify(doc);
    },
  })),
  fc.oneof(fc.constantFrom("enabled", "ON", "true", "Encrypted", ""), okName).map((v) => ({
    what: `TDE ${JSON.stringify(v)}`,
    apply: (doc: Doc) => {
      (doc.config["stackwarden:databases"] as Db[])[0].transparentDataEncryption = v;
      return stringify(doc);
    },
  })),
  fc.oneof(okName, fc.constant("0000-0000"), fc.constant(`${GUID}x`)).map((v) => ({
    what: `subscription ${JSON.stringify(v)}`,
    apply: (doc: Doc) => {
      doc.config["stackwarden:subscriptionId"] = v;
      return stringify(doc);
    },
  })),
  fc.boolean().map((upper) => ({
    what: `duplicate database${upper ? " (other case)" : ""}`,
    apply: (doc: Doc) => {
      const dbs = doc.config["stackwarden:databases"] as Db[];
      const d = dbs[0];
      dbs.push({ ...d, database: upper ? String(d.database).toUpperCase() : d.database });
      return stringify(doc);
    },
  })),
  fc.constantFrom("East US", "east-us", "EASTUS", "").map((loc) => ({
    what: `location ${JSON.stringify(loc)}`,
    apply: (doc: Doc) => {
      doc.config["stackwarden:batch"] = { locations: [loc] };
      return stringify(doc);
    },
  })),
  fc.nat().map((n) => ({
    what: "a tab as indentation",
    apply: (_doc: Doc, text: string) => {
      const lines = text.split("\n");
      const indented = lines.map((l, i) => [l, i] as const).filter(([l]) => /^ +\S/.test(l));
      const [line, i] = indented[n % indented.length];
      lines[i] = line.replace(/^ +/, (s) => `\t${s.slice(1)}`);
      return lines.join("\n");
    },
  })),
  fc.nat().map((n) => ({
    what: "a duplicate key",
    apply: (_doc: Doc, text: string) => {
      const lines = text.split("\n");
      const keys = lines.map((l, i) => [l, i] as const).filter(([l]) => /^\s*[A-Za-z][\w:]*: \S/.test(l) && !/^\s*- /.test(l));
      const [line, i] = keys[n % keys.length];
      lines.splice(i + 1, 0, line);
      return lines.join("\n");
    },
  })),
  fc
    .constantFrom(
      ["an alias without an anchor", (t: string) => t.replace("stackwarden:subscriptionId: ", "stackwarden:subscriptionId: *nowhere #")],
      [
        "an alias before its anchor",
        (t: string) => `${t.replace(/^config:/m, "config:\n  stackwarden:batch: *later")}later: &later { locations: [] }\n`,
      ],
      [
        "an alias inside its own anchor",
        (t: string) => t.replace(/^config:/m, "config:\n  stackwarden:batch: &self\n    locations: *self"),
      ],
      [
        "aliases of aliases",
        (t: string) =>
          `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n${t}`,
      ],
      ["an unclosed flow", (t: string) => `${t.replace(/\n$/, "")}\n  stackwarden:batch: { locations: [eastus\n`],
      ["a second document", (t: string) => `${t}---\nconfig: {}\n`],
      ["a bad indentation", (t: string) => t.replace(/^config:\n/m, "config:\n stackwarden:batch: {}\n")],
    )
    .map(([what, edit]) => ({ what, apply: (_doc: Doc, text: string) => (edit as (t: string) => string)(text) })),
);

export interface FuzzCase {
  what: string;
  text: string;
  command: readonly string[];
}

/** A broken stack file, and the command it is given to. */
export const stackFuzzCase: fc.Arbitrary<FuzzCase> = fc
  .tuple(validDoc, mutation, fc.constantFrom(["plan"], ["apply", "--yes"], ["inventory", "--output", "json"], ["drift"], ["check"]))
  .map(([doc, m, command]) => {
    const copy = JSON.parse(JSON.stringify(doc)) as Doc;
    return { what: m.what, text: m.apply(copy, stringify(doc)), command };
  });

/** Where a case runs: a directory for its file, and a server counting any request that reaches it. */
export interface FuzzBench {
  dir: string;
  requests(): number;
  close(): Promise<void>;
  env: NodeJS.ProcessEnv;
}

/** Starts the bench: every endpoint points at one counting server, so any API call shows. */
export async function startFuzzBench(): Promise<FuzzBench> {
  let requests = 0;
  const server: Server = createServer((_req, res) => {
    requests += 1;
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-fuzz-"));
  return {
    dir,
    requests: () => requests,
    env: { STACKWARDEN_ARM_ENDPOINT: url, STACKWARDEN_IMDS_ENDPOINT: `${url}/metadata`, AZURE_ACCESS_TOKEN: "fuzz-token" },
    close: async () => {
      rmSync(dir, { recursive: true, force: true });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Runs one case and says what is wrong with how it ended, or undefined when it ended as it must:
 * exit 1, one stderr line `stackwarden: SW_CONFIG_INVALID: <file>:<line>:<column>: …` inside the file, no request, and
 * nothing on stdout but, with --output json, that error as `{"error":{"code","message"}}`.
 */
export async function checkFuzzCase(bench: FuzzBench, c: FuzzCase, n: number): Promise<string | undefined> {
  const file = `Pulumi.fuzz-${n}.yaml`;
  writeFileSync(join(bench.dir, file), c.text);
  const before = bench.requests();
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([...c.command, "--config", file], {
    out: (l) => out.push(l),
    err: (l) => err.push(...l.split("\n")),
    isTTY: false,
    cwd: bench.dir,
    exitCode: 0,
    env: bench.env,
  });
  const problems: string[] = [];
  if (code !== 1) problems.push(`exit ${code}, not 1`);
  if (bench.requests() !== before) problems.push(`${bench.requests() - before} request(s) reached the API`);
  // With --output json the error is also the one document on stdout; otherwise stdout stays empty.
  const asked = c.command.includes("json");
  if (asked ? !isErrorDocument(out, err[0]) : out.length)
    problems.push(`stdout was not ${asked ? "the error as JSON" : "empty"}: ${out.join(" | ").slice(0, 200)}`);
  if (err.length !== 1) problems.push(`${err.length} stderr lines, not 1: ${err.join(" | ").slice(0, 300)}`);
  const m = new RegExp(`^stackwarden: SW_CONFIG_INVALID: ${file.replace(/\./g, "\\.")}:(\\d+):(\\d+): \\S`).exec(err[0] ?? "");
  if (!m) problems.push(`stderr does not start with SW_CONFIG_INVALID: ${file}:line:column: ${err[0]}`);
  else {
    const lines = c.text.split("\n").length;
    if (Number(m[1]) < 1 || Number(m[1]) > lines) problems.push(`line ${m[1]} is outside the file's ${lines} lines`);
    if (Number(m[2]) < 1) problems.push(`column ${m[2]}`);
  }
  return problems.length ? `${c.what} (${c.command[0]}): ${problems.join("; ")}\n--- the file ---\n${c.text}` : undefined;
}

export interface FuzzReport {
  cases: number;
  failure?: string;
  seed: number;
  ms: number;
}

/** Runs `cases` generated cases under fast-check with `seed`; on a failure, fast-check's shrunk counterexample. */
export async function runStackFuzz(opts: { cases: number; seed: number }): Promise<FuzzReport> {
  const started = Date.now();
  const bench = await startFuzzBench();
  let n = 0;
  try {
    await fc.assert(
      fc.asyncProperty(stackFuzzCase, async (c) => {
        const problem = await checkFuzzCase(bench, c, n++);
        if (problem) throw new Error(problem);
      }),
      { numRuns: opts.cases, seed: opts.seed },
    );
    return { cases: opts.cases, seed: opts.seed, ms: Date.now() - started };
  } catch (e) {
    return { cases: n, seed: opts.seed, ms: Date.now() - started, failure: (e as Error).message };
  } finally {
    await bench.close();
  }
}

/** Whether stdout is exactly the JSON form of the stderr line `stackwarden: CODE: message`. */
function isErrorDocument(out: readonly string[], line: string | undefined): boolean {
  const m = /^stackwarden: (SW_[A-Z_]+): (.*)$/.exec(line ?? "");
  if (!m || out.length !== 1) return false;
  try {
    const doc = JSON.parse(out[0]) as { error?: { code?: unknown; message?: unknown } };
    return Object.keys(doc).length === 1 && doc.error?.code === m[1] && doc.error.message === m[2];
  } catch {
    return false;
  }
}
