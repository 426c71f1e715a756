import { allRules } from "../../domain/compliance/registry";
import type { StackwardenRepository } from "./stackwarden-repository";

/** The line `init` makes sure `.gitignore` has: stackwarden's local state is no one's to commit. */
export const STATE_IGNORE_LINE = ".stackwarden/";

/**
 * The files `stackwarden init` writes, by path relative to the repository: a commented starter stack
 * and the three workflows that call stackwarden's own by reference. The stack names databases of the
 * example estate the embedded emulator serves, so `check` runs against `stackwarden emulator` at once.
 */
export function starterFiles(stack: string, from: StackwardenRepository): Record<string, string> {
  return {
    [`stacks/Pulumi.${stack}.yaml`]: starterStack(),
    ".github/workflows/stackwarden-pull-request.yml": callerWorkflow(from, "pull-request.yml", PULL_REQUEST),
    ".github/workflows/stackwarden-merge.yml": callerWorkflow(from, "merge.yml", MERGE),
    ".github/workflows/stackwarden-drift.yml": callerWorkflow(from, "drift.yml", DRIFT),
  };
}

function starterStack(): string {
  return `# A stackwarden stack: the databases whose transparent data encryption (TDE) stackwarden keeps as
# declared, and the rules it checks them with. The names below are of the example estate the embedded
# emulator serves: try them with \`npx stackwarden emulator\`, then in another shell
#   npx stackwarden plan --stack <name> --emulator <the URL it printed first>
#   npx stackwarden check --stack <name> --emulator <URL>   # exit 3: the estate has an unencrypted database
# Then put your own subscription and databases here (stackwarden's README, "The stack file").
config:
  # The subscription that holds the databases.
  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000
  # Each database and the TDE status it must have: apply makes it so, check fails a database that differs.
  stackwarden:databases:
    - resourceGroup: rg-data
      server: sql-prod-1
      database: orders
      transparentDataEncryption: Enabled
    - resourceGroup: rg-data
      server: sql-prod-2
      database: inventory
      transparentDataEncryption: Enabled
  # Per-rule level (advisory | mandatory | disabled) and thresholds (stackwarden's README, "Compliance
  # rules"), e.g. \`<rule>: { enforcementLevel: mandatory }\`. A rule not listed keeps its default level:
${allRules()
  .map((r) => `  #   ${r.id}: ${r.defaultLevel}`)
  .join("\n")}
  stackwarden:policies: {}
  # native: stackwarden applies the TDE changes itself; pulumi: \`pulumi up\` with the compliance pack.
  stackwarden:engine: native
`;
}

interface Caller {
  /** What the workflow does, for its header. */
  what: string;
  name: string;
  on: string;
  /** The permissions its jobs ask for (a caller grants them to the reusable workflow). */
  permissions: string[];
}

const PULL_REQUEST: Caller = {
  what: "the pull-request gate: for each stack a pull request changes, plan and check --planned, SARIF to code\n# scanning, one pull-request comment updated in place; a mandatory violation fails the stack's job",
  name: "stackwarden pull request",
  on: "  pull_request:\n    branches: [main]\n",
  permissions: [
    "contents: read",
    "id-token: write # OIDC sign-in to Azure",
    "security-events: write # SARIF",
    "pull-requests: write # the comment",
  ],
};

const MERGE: Caller = {
  what: "apply on merge: every stack the push changes is applied (one at a time per stack), then its live\n# state checked",
  name: "stackwarden merge",
  on: "  push:\n    branches: [main]\n",
  permissions: ["contents: read", "id-token: write # OIDC sign-in to Azure", "security-events: write # SARIF"],
};

const DRIFT: Caller = {
  what: "drift on a schedule: drift and check for every stack; a stack that drifted gets one issue",
  name: "stackwarden drift",
  on: '  schedule:\n    - cron: "23 */6 * * *" # every 6 hours, off the hour\n  workflow_dispatch: {}\n',
  permissions: [
    "contents: read",
    "id-token: write # OIDC sign-in to Azure",
    "security-events: write # SARIF",
    "issues: write # the stack's drift issue",
  ],
};

function callerWorkflow(from: StackwardenRepository, workflow: string, c: Caller): string {
  return `# stackwarden ${c.what}.
# Written by \`stackwarden init\`: the workflow is stackwarden's own, used by reference (its README,
# "Pipelines (GitHub Actions)", says which repository variables it reads: AZURE_CLIENT_ID, ...).
name: ${c.name}

on:
${c.on}
permissions:
  contents: read

jobs:
  stackwarden:
    permissions:
${c.permissions.map((p) => `      ${p}`).join("\n")}
    uses: ${from.repository}/.github/workflows/${workflow}@${from.ref}
    with:
      stacks-dir: stacks # the folder of your stack files
      state-url: "" # shared state (a Blob Storage container URL), or "" for the runner's own files
      engine: "" # native or pulumi for every stack, or "" for each stack's stackwarden:engine
    secrets: inherit # PULUMI_CONFIG_PASSPHRASE, for Pulumi-engine stacks
`;
}
