import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { stringify } from "yaml";
import { loadStackFile } from "../../../usecases/stack-file";
import { stackFilePath } from "../../../platform/files/stack-files";
import { gitSource } from "../../gitops/git-remote";
import { stackCrdValidator, stackCrProblems } from "../../gitops/pko/stack-crd";
import { resourceNameProblems, stackCustomResource, stackResourceName, type PkoSettings } from "../../gitops/pko/stack-cr";
import { listStacks } from "../../gitops/stack-listing";
import { pulumiSdkVersion } from "../../../platform/programs/pulumi-engine";
import { UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";
import { intOption } from "../option-parsers";

interface PkoFlags {
  stack: string[];
  all?: boolean;
  out?: string;
  repo?: string;
  branch?: string;
  repoDir?: string;
  namespace: string;
  namePrefix: string;
  serviceAccount: string;
  org?: string;
  backend?: string;
  secret: string;
  resync: number;
  driftRepair: boolean;
  clientId?: string;
  image?: string;
}

const collect = (v: string, prev: string[]) => [...prev, v];

/** A Kubernetes name flag: a DNS-1123 label. */
function labelOption(what: string) {
  return (v: string): string => {
    if (v.length > 63 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(v))
      throw new InvalidArgumentError(`${what} must be a DNS-1123 label (at most 63 lowercase letters, digits and '-'), got "${v}"`);
    return v;
  };
}

/** Registers `pko`: a Pulumi Kubernetes Operator Stack resource per stack, validated against the operator's CRD. */
export function registerPko(program: Command, io: CommandIO): void {
  pkoOptions(program.command("pko")).action((flags: PkoFlags) => runPko(flags, io));
}

/** The command's description, options and help text, in the order `pko --help` shows them. */
function pkoOptions(command: Command): Command {
  return command
    .description(
      "write a Pulumi Kubernetes Operator Stack resource (pulumi.com/v1) per stack, validated against the operator's CRD (exit 0, 1 error)",
    )
    .option("--stack <name>", "a stack (stacks/Pulumi.<name>.yaml); repeatable", collect, [] as string[])
    .option("--all", "every stack of the project")
    .option("--out <dir>", "write <dir>/<stack>.yaml (default: print the resources to stdout)")
    .option("--repo <url>", "the git repository the operator clones (default: the origin remote, as https, credentials removed)")
    .option("--branch <name>", "the branch the operator follows (default: origin's default branch, else the current one)")
    .option("--repo-dir <dir>", "the project's folder in the repository (default: where this project sits in its git repository)")
    .option("--namespace <ns>", "the namespace of the Stack resources", labelOption("--namespace"), "stackwarden")
    .option("--name-prefix <prefix>", "the Stack resources are named <prefix><stack> (at most 42 characters in all)", "stackwarden-")
    .option(
      "--service-account <name>",
      "the workspace's service account, federated with the Azure identity",
      labelOption("--service-account"),
      "stackwarden",
    )
    .option("--org <org>", "Pulumi organization: spec.stack becomes <org>/<stack>")
    .option("--backend <url>", "a self-managed state backend such as azblob://<container> (default: Pulumi Cloud)")
    .option(
      "--secret <name>",
      "the Secret with the backend's credential: key accessToken (Pulumi Cloud) or passphrase",
      labelOption("--secret"),
      "stackwarden-pulumi",
    )
    .option(
      "--resync <seconds>",
      "seconds between the operator's polls and drift-repair runs (the CRD treats < 60 as 60)",
      intOption(60, 31_536_000),
      3600,
    )
    .option("--no-drift-repair", "run only on new commits (default: also re-run pulumi up --refresh every resync)")
    .option("--client-id <id>", "the Azure managed identity's client id, when the service account's annotation does not give it")
    .option("--image <image>", "the workspace image (default: pulumi/pulumi:<the project's Pulumi version>-nonroot)")
    .addHelpText(
      "after",
      [
        "",
        "Each resource is validated against specs/pko/pulumi.com_stacks.yaml (OpenAPI schema, unknown fields, CEL rules)",
        "before anything is written. The operator cannot run a policy pack: see docs/scale-out.md for what gates PKO.",
        "",
        "Examples:",
        "  stackwarden pko --stack dev",
        "  stackwarden pko --all --out deploy/pko --backend azblob://pulumi-state --branch main",
      ].join("\n"),
    );
}

/** The action: every resource is built and validated before one is printed or written. */
function runPko(flags: PkoFlags, io: CommandIO): void {
  const names = stackNames(flags, io.cwd);
  // Every stack file must be valid: a resource for a broken stack would only fail in the cluster.
  for (const n of names) loadStackFile(stackFilePath(n, io.cwd), io.env, io.cwd);
  checkResourceNames(names, flags.namePrefix);
  let source;
  try {
    source = gitSource(io.cwd, { repo: flags.repo, branch: flags.branch, repoDir: flags.repoDir });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const settings = pkoSettings(flags);
  const crd = stackCrdValidator({ env: io.env });
  const docs = names.map((n) => {
    const cr = stackCustomResource(n, source, settings);
    const problems = stackCrProblems(cr, crd);
    if (problems.length)
      throw new UsageError(`the Stack resource for ${n} does not validate against the operator's CRD: ${problems.join("; ")}`);
    return { stack: n, text: `${header(n, flags)}${stringify(cr, { lineWidth: 0 })}` };
  });
  if (!flags.out) {
    io.out(docs.map((d) => d.text.trimEnd()).join("\n---\n"));
    return;
  }
  const dir = resolve(io.cwd, flags.out);
  mkdirSync(dir, { recursive: true });
  for (const d of docs) {
    const file = join(dir, `${d.stack}.yaml`);
    writeFileSync(file, d.text);
    io.err(`stackwarden pko: wrote ${relative(io.cwd, file) || file} (valid against the operator's Stack CRD)`);
  }
}

/** The stacks asked for: `--all` or each `--stack` once. */
function stackNames(flags: PkoFlags, cwd: string): string[] {
  if (flags.all && flags.stack.length) throw new UsageError("give either --stack NAME (repeatable) or --all, not both");
  const names = flags.all ? listStacksOrFail(cwd) : [...new Set(flags.stack)];
  if (!names.length)
    throw new UsageError(flags.all ? "no stacks in stacks/: nothing to write" : "which stacks? give --stack NAME (repeatable) or --all");
  return names;
}

/** Each stack's resource name must be valid and its own: two stacks must not become one resource. */
function checkResourceNames(names: readonly string[], namePrefix: string): void {
  const byName = new Map<string, string>();
  for (const n of names) {
    const name = stackResourceName(namePrefix, n);
    const problems = resourceNameProblems(name);
    if (problems.length) throw new UsageError(`stack ${n}: the Stack resource name ${problems[0]}; choose a shorter --name-prefix`);
    const clash = byName.get(name);
    if (clash) throw new UsageError(`stacks ${clash} and ${n} both become the resource name ${name}: rename one stack`);
    byName.set(name, n);
  }
}

function pkoSettings(flags: PkoFlags): PkoSettings {
  return {
    namespace: flags.namespace,
    namePrefix: flags.namePrefix,
    serviceAccount: flags.serviceAccount,
    org: flags.org,
    backend: flags.backend,
    secretName: flags.secret,
    resyncSeconds: flags.resync,
    driftRepair: flags.driftRepair,
    clientId: flags.clientId,
    image: flags.image ?? `pulumi/pulumi:${pulumiSdkVersion()}-nonroot`,
  };
}

function listStacksOrFail(cwd: string): string[] {
  try {
    return listStacks(cwd).map((s) => s.stack);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** The file's first lines: what made it, so it is regenerated rather than edited. */
function header(stack: string, flags: PkoFlags): string {
  return [
    `# The Pulumi Kubernetes Operator Stack for stackwarden stack ${stack} (stacks/Pulumi.${stack}.yaml).`,
    "# Generated by `stackwarden pko`; regenerate rather than edit. Prerequisites and the compliance gate: docs/scale-out.md.",
    ...(flags.backend ? [] : ["# Backend: Pulumi Cloud (token from the Secret's accessToken)."]),
    "",
  ].join("\n");
}
