import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { cloneUrl } from "../../../src/interfaces/gitops/git-remote";
import { stackCrdValidator, stackCrProblems, STACK_CRD_PATH } from "../../../src/interfaces/gitops/pko/stack-crd";
import { stackCustomResource, type PkoSettings } from "../../../src/interfaces/gitops/pko/stack-cr";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { git } from "../../helpers/git";
import { runCliWith } from "../cli/cli-harness";

/**
 * `stackwarden pko`: Stack resources for the Pulumi Kubernetes Operator, validated with ajv against
 * the operator's published CRD (specs/pko/pulumi.com_stacks.yaml) and its CEL rules; deploy/pko/.
 */
const cacheDir = mkdtempSync(join(tmpdir(), "stackwarden-pko-cache-"));
const SUB = "00000000-0000-0000-0000-000000000000";
const SETTINGS: PkoSettings = {
  namespace: "stackwarden",
  namePrefix: "stackwarden-",
  serviceAccount: "stackwarden",
  secretName: "stackwarden-pulumi",
  resyncSeconds: 3600,
  driftRepair: true,
  image: "pulumi/pulumi:3.248.0-nonroot",
};
const SOURCE = { repo: "https://github.com/acme/estate.git", branch: "main", repoDir: "." };

/** The command that generated deploy/pko/ (deploy/pko/README.md says the same). */
const DEPLOY_ARGS = [
  "pko",
  "--all",
  "--repo",
  "https://github.com/example-org/stackwarden.git",
  "--branch",
  "main",
  "--backend",
  "azblob://pulumi-state?storage_account=stackwardenstate",
];

/** The CLI in `cwd`, with only the test's cache directory in its environment. */
const cli = (cwd: string, ...argv: string[]) => runCliWith(argv, { cwd, env: { STACKWARDEN_CACHE_DIR: cacheDir } });

let crd: ReturnType<typeof stackCrdValidator>;
beforeAll(() => {
  crd = stackCrdValidator({ cacheDir });
}, 60_000);

const valid = () => structuredClone(stackCustomResource("dev", SOURCE, SETTINGS)) as Record<string, Record<string, unknown>>;

describe("the Stack resource", () => {
  it("has what the operator needs and validates against the CRD", () => {
    const cr = valid();
    expect(stackCrProblems(cr, crd)).toEqual([]);
    expect(cr.spec).toMatchObject({
      stack: "dev",
      projectRepo: SOURCE.repo,
      branch: "main",
      repoDir: ".",
      refresh: true,
      resyncFrequencySeconds: 3600,
      destroyOnFinalize: false,
      serviceAccountName: "stackwarden",
      envRefs: { PULUMI_ACCESS_TOKEN: { type: "Secret", secret: { name: "stackwarden-pulumi", key: "accessToken" } } },
      workspaceTemplate: { spec: { podTemplate: { metadata: { labels: { "azure.workload.identity/use": "true" } } } } },
    });
  });

  it("a self-managed backend takes a passphrase; an org qualifies the stack; a client id is a literal", () => {
    const cr = stackCustomResource("prod", SOURCE, { ...SETTINGS, backend: "azblob://state", org: "acme", clientId: "cid" }) as {
      spec: Record<string, unknown>;
    };
    expect(stackCrProblems(cr, crd)).toEqual([]);
    expect(cr.spec.stack).toBe("acme/prod");
    expect(cr.spec.backend).toBe("azblob://state");
    expect(cr.spec.envRefs).toEqual({
      PULUMI_CONFIG_PASSPHRASE: { type: "Secret", secret: { name: "stackwarden-pulumi", key: "passphrase" } },
      AZURE_CLIENT_ID: { type: "Literal", literal: { value: "cid" } },
    });
  });

  it("the validator refuses what the API server would: unknown fields, wrong types, int32 overflow, enums, the CEL name rule, metadata", () => {
    const cases: [(cr: Record<string, Record<string, unknown>>) => void, string][] = [
      [(cr) => (cr.spec.refrsh = true), "spec.refrsh: is not a field of the CRD (Kubernetes would reject it)"],
      [(cr) => (cr.spec.resyncFrequencySeconds = "1h"), "spec.resyncFrequencySeconds: must be integer"],
      [(cr) => (cr.spec.workspaceReclaimPolicy = "Keep"), "spec.workspaceReclaimPolicy: must be equal to one of the allowed values"],
      [
        (cr) =>
          ((cr.spec.workspaceTemplate as { spec: { podTemplate: { spec?: unknown } } }).spec.podTemplate.spec = { priority: 2 ** 31 }),
        'spec.workspaceTemplate.spec.podTemplate.spec.priority: must match format "int32"',
      ],
      [(cr) => (cr.spec.envRefs = { X: { literal: { value: "v" } } }), "spec.envRefs.X: must have required property 'type'"],
      [
        (cr) => (cr.metadata.name = `stackwarden-${"x".repeat(31)}`),
        "(the object): Stack name must be no more than 42 characters in length. (CEL: size(self.metadata.name) <= 42)",
      ],
      [
        (cr) => (cr.metadata.namespace = "Prod_NS"),
        `metadata.namespace: "Prod_NS" is not a DNS-1123 label (at most 63 lowercase letters, digits and '-')`,
      ],
      [(cr) => (cr.apiVersion = "pulumi.com/v1alpha1" as never), 'apiVersion: must be pulumi.com/v1, got "pulumi.com/v1alpha1"'],
      [(cr) => delete (cr.spec as Record<string, unknown>).stack, "spec: must have required property 'stack'"],
    ];
    for (const [mutate, problem] of cases) {
      const cr = valid();
      mutate(cr);
      expect(stackCrProblems(cr, crd)).toContain(problem);
    }
  });

  it("a CEL rule stackwarden does not evaluate fails every validation instead of passing silently", () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-crd-"));
    const text = readFileSync(STACK_CRD_PATH, "utf8").replace(
      "        - message: Stack name must be no more than 42 characters in length.\n          rule: size(self.metadata.name) <= 42\n",
      "        - message: Stack name must be no more than 42 characters in length.\n          rule: size(self.metadata.name) <= 42\n        - message: no dots\n          rule: \"!self.metadata.name.contains('.')\"\n",
    );
    expect(text).toContain("no dots");
    writeFileSync(join(dir, "crd.yaml"), text);
    const other = stackCrdValidator({ crdPath: join(dir, "crd.yaml"), cacheDir: dir });
    expect(stackCrProblems(valid(), other)).toEqual([
      `(the object): the CRD's CEL rule "!self.metadata.name.contains('.')" is not evaluated by stackwarden; add it to src/interfaces/gitops/pko/stack-crd.ts`,
    ]);
  }, 60_000);

  it("the compiled validator is cached on disk and used from there by the next process", () => {
    const files = readdirSync(cacheDir).filter((f) => f.startsWith("stacks-v1-") && f.endsWith(".js"));
    expect(files).toHaveLength(1);
    // A cache entry that refuses everything proves the next process reads it instead of compiling.
    const entry = join(cacheDir, files[0]);
    const real = readFileSync(entry, "utf8");
    writeFileSync(
      entry,
      'module.exports.default = function v(){ v.errors = [{ instancePath: "/spec", keyword: "x", message: "from the cache" }]; return false; };\nmodule.exports.celRules = [];\n',
    );
    const script = `const { stackCrProblems, stackCrdValidator } = require(${JSON.stringify(join(PROJECT_ROOT, "dist", "src", "interfaces", "gitops", "pko", "stack-crd.js"))});
      console.log(JSON.stringify(stackCrProblems(${JSON.stringify(valid())}, stackCrdValidator({ cacheDir: ${JSON.stringify(cacheDir)} }))));`;
    const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    writeFileSync(entry, real);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(["spec: from the cache"]);
  });
});

describe("stackwarden pko", () => {
  function project(remote?: string): string {
    const top = mkdtempSync(join(tmpdir(), "stackwarden-pko-"));
    const dir = join(top, "infra");
    mkdirSync(join(dir, "stacks"), { recursive: true });
    writeFileSync(join(dir, "Pulumi.yaml"), "name: stackwarden\n");
    for (const s of ["prod", "staging_eu"])
      writeFileSync(join(dir, "stacks", `Pulumi.${s}.yaml`), `config:\n  stackwarden:subscriptionId: ${SUB}\n`);
    git(top, "init", "-q", "-b", "trunk");
    git(top, "add", "-A");
    git(top, "commit", "-q", "-m", "x");
    if (remote) {
      git(top, "remote", "add", "origin", remote);
      git(top, "update-ref", "refs/remotes/origin/release", "HEAD");
      git(top, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/release");
    }
    return dir;
  }

  it("takes repo, branch and repoDir from git: origin as https without credentials, origin's default branch, the project's folder", async () => {
    const dir = project("git@github.com:acme/estate.git");
    const r = await cli(dir, "pko", "--stack", "prod");
    expect(r.code, r.err).toBe(0);
    const cr = parse(r.out) as { metadata: { name: string }; spec: Record<string, unknown> };
    expect(cr.metadata.name).toBe("stackwarden-prod");
    expect(cr.spec).toMatchObject({ projectRepo: "https://github.com/acme/estate.git", branch: "release", repoDir: "infra" });
    expect(r.out.split("\n")[0]).toBe("# The Pulumi Kubernetes Operator Stack for stackwarden stack prod (stacks/Pulumi.prod.yaml).");
  });

  it("--all --out writes one valid file per stack, names made Kubernetes-safe", async () => {
    const dir = project("https://user:token@git.example.com/acme/estate.git");
    const r = await cli(dir, "pko", "--all", "--out", "k8s", "--org", "acme", "--resync", "600", "--no-drift-repair");
    expect(r.code, r.err).toBe(0);
    expect(r.err.split("\n")).toEqual([
      "stackwarden pko: wrote k8s/prod.yaml (valid against the operator's Stack CRD)",
      "stackwarden pko: wrote k8s/staging_eu.yaml (valid against the operator's Stack CRD)",
    ]);
    const eu = parse(readFileSync(join(dir, "k8s", "staging_eu.yaml"), "utf8")) as {
      metadata: { name: string };
      spec: Record<string, unknown>;
    };
    expect(eu.metadata.name).toBe("stackwarden-staging-eu");
    expect(eu.spec).toMatchObject({
      stack: "acme/staging_eu",
      projectRepo: "https://git.example.com/acme/estate.git",
      resyncFrequencySeconds: 600,
      continueResyncOnCommitMatch: false,
    });
    expect(stackCrProblems(eu, crd)).toEqual([]);
    const printed = await cli(dir, "pko", "--all", "--repo", "https://x/y.git", "--branch", "b");
    expect(parseAllDocuments(printed.out).map((d) => (d.toJS() as { metadata: { name: string } }).metadata.name)).toEqual([
      "stackwarden-prod",
      "stackwarden-staging-eu",
    ]);
  });

  it.each([
    [["pko"], "stackwarden: SW_USAGE: which stacks? give --stack NAME (repeatable) or --all"],
    [["pko", "--all", "--stack", "prod"], "stackwarden: SW_USAGE: give either --stack NAME (repeatable) or --all, not both"],
    [
      ["pko", "--stack", "nope"],
      "stackwarden: SW_STACK_NOT_FOUND: stacks/Pulumi.nope.yaml: stack file not found (stacks here: prod, staging_eu)",
    ],
    [
      ["pko", "--stack", "prod"],
      `stackwarden: SW_USAGE: the repository at {top} has no remote "origin": pass --repo URL (the repository the operator clones)`,
    ],
    [
      ["pko", "--stack", "staging_eu", "--repo", "https://x/y.git", "--branch", "b", "--name-prefix", "the-stackwarden-estate-of-acme-"],
      'stackwarden: SW_USAGE: stack staging_eu: the Stack resource name "the-stackwarden-estate-of-acme-staging-eu" is 41 characters; the operator\'s CRD allows at most 42 (CEL: size(self.metadata.name) <= 42); choose a shorter --name-prefix',
    ],
    [
      ["pko", "--stack", "prod", "--namespace", "Prod"],
      `stackwarden pko: SW_USAGE: option '--namespace <ns>' argument 'Prod' is invalid. --namespace must be a DNS-1123 label (at most 63 lowercase letters, digits and '-'), got "Prod" (see stackwarden pko --help)`,
    ],
    [
      ["pko", "--stack", "prod", "--resync", "30"],
      "stackwarden pko: SW_USAGE: option '--resync <seconds>' argument '30' is invalid. expected 60..31536000, got 30 (see stackwarden pko --help)",
    ],
  ])("%j is one line: %s", async (argv, message) => {
    const dir = project();
    const top = join(dir, "..");
    const r = await cli(dir, ...argv);
    if (message.includes("is 41 characters")) {
      // 41 fits; one more character does not.
      expect(r.code, r.err).toBe(0);
      const longer = await cli(dir, ...argv.map((a) => (a.endsWith("acme-") ? "the-stackwarden-estate-of-acme-x-" : a)));
      expect(longer.code).toBe(1);
      expect(longer.err).toMatch(
        /the Stack resource name "the-stackwarden-estate-of-acme-x-staging-eu" is 43 characters; the operator's CRD allows at most 42/,
      );
      return;
    }
    expect(r.code).toBe(1);
    expect(r.err).toBe(message.replace("{top}", top));
  });

  it("two stacks that make the same resource name are refused", async () => {
    const dir = project();
    writeFileSync(join(dir, "stacks", "Pulumi.staging.eu.yaml"), `config:\n  stackwarden:subscriptionId: ${SUB}\n`);
    const r = await cli(dir, "pko", "--stack", "staging_eu", "--stack", "staging.eu", "--repo", "https://x/y.git", "--branch", "b");
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      "stackwarden: SW_USAGE: stacks staging_eu and staging.eu both become the resource name stackwarden-staging-eu: rename one stack",
    );
  });

  it.each([
    ["git@github.com:acme/estate.git", "https://github.com/acme/estate.git"],
    ["ssh://git@github.com/acme/estate.git", "https://github.com/acme/estate.git"],
    ["https://oauth2:ghp_secret@github.com/acme/estate", "https://github.com/acme/estate"],
    ["https://github.com/acme/estate.git", "https://github.com/acme/estate.git"],
  ])("the default clone URL of %s is %s", (remote, url) => {
    expect(cloneUrl(remote)).toBe(url);
  });
});

describe("deploy/pko", () => {
  const deployDir = join(PROJECT_ROOT, "deploy", "pko");
  const files = readdirSync(deployDir).filter((f) => f.endsWith(".yaml"));

  it("holds one Stack per example stack, each valid against the CRD", () => {
    const stacks = readdirSync(join(PROJECT_ROOT, "stacks"))
      .map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1])
      .filter(Boolean);
    expect(files.sort()).toEqual(stacks.map((s) => `${s}.yaml`).sort());
    for (const f of files) {
      const docs = parseAllDocuments(readFileSync(join(deployDir, f), "utf8"));
      expect(docs).toHaveLength(1);
      expect(stackCrProblems(docs[0].toJS(), crd), f).toEqual([]);
    }
  });

  it("is what stackwarden pko generates for the example stacks today (regenerate with deploy/pko/README.md's command)", async () => {
    const out = mkdtempSync(join(tmpdir(), "stackwarden-deploy-"));
    const r = await cli(PROJECT_ROOT, ...DEPLOY_ARGS, "--out", out);
    expect(r.code, r.err).toBe(0);
    for (const f of files) expect(readFileSync(join(out, f), "utf8"), f).toBe(readFileSync(join(deployDir, f), "utf8"));
    expect(readFileSync(join(deployDir, "README.md"), "utf8")).toContain(
      `stackwarden ${DEPLOY_ARGS.map((a) => (a.includes("?") ? `"${a}"` : a)).join(" ")} --out deploy/pko`,
    );
  });
});
