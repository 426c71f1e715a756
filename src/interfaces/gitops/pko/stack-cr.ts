import type { GitSource } from "../git-remote";
import { STACK_API_VERSION, STACK_KIND } from "./stack-crd";

/** How a stackwarden stack runs under the Pulumi Kubernetes Operator. */
export interface PkoSettings {
  namespace: string;
  /** Prefix of the Stack resources' names: `<prefix><stack>`. */
  namePrefix: string;
  /** The Kubernetes service account of the stack's workspace, federated with an Azure identity (workload identity). */
  serviceAccount: string;
  /** Pulumi organization: the stack becomes `<org>/<stack>` (Pulumi Cloud); none: `<stack>`. */
  org?: string;
  /** A self-managed state backend (`azblob://…`, `s3://…`, `file://…`); none: Pulumi Cloud. */
  backend?: string;
  /** The Secret holding the backend's credential: `accessToken` (Pulumi Cloud) or `passphrase` (self-managed backends). */
  secretName: string;
  /** Seconds between the operator's polls of the branch and, with drift repair, re-runs. */
  resyncSeconds: number;
  /** Re-run `pulumi up --refresh` every resync even without a new commit (repairs drift). */
  driftRepair: boolean;
  /** The managed identity's client id, when the service account's annotation does not name it. */
  clientId?: string;
  /** The workspace image (Pulumi CLI and Node.js). */
  image: string;
}

/** The label that ties a Stack resource to its stackwarden stack. */
export const STACK_LABEL = "app.kubernetes.io/instance";

/** Whether a backend URL is Pulumi Cloud (token auth) rather than a self-managed one (passphrase). */
export function isPulumiCloud(backend: string | undefined): boolean {
  return !backend || /^https:\/\/(app|api)\.pulumi\.com\/?$/.test(backend);
}

/**
 * The Kubernetes name of a stack's Stack resource: `<prefix><stack>`, lowercased, with `_` and `.`
 * as `-` (the operator names the workspace's Service after it, and a Service name is a DNS-1035 label).
 */
export function stackResourceName(prefix: string, stack: string): string {
  return `${prefix}${stack}`.toLowerCase().replace(/[_.]/g, "-");
}

/** Checks of a resource name the CRD and Kubernetes make, as one-line problems (empty when fine). */
export function resourceNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 42)
    problems.push(`"${name}" is ${name.length} characters; the operator's CRD allows at most 42 (CEL: size(self.metadata.name) <= 42)`);
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name))
    problems.push(`"${name}" must start with a letter, end with a letter or digit, and hold only lowercase letters, digits and '-'`);
  return problems;
}

/**
 * The `pulumi.com/v1` `Stack` custom resource for one stackwarden stack: the project from git
 * (repo, branch, repoDir), `refresh: true` so every update starts from live state,
 * `destroyOnFinalize: false` so deleting the resource never touches Azure, credentials by
 * reference only (the backend's Secret; Azure through the workspace's workload identity).
 */
export function stackCustomResource(stack: string, source: GitSource, s: PkoSettings): Record<string, unknown> {
  const envRefs: Record<string, unknown> = isPulumiCloud(s.backend)
    ? { PULUMI_ACCESS_TOKEN: { type: "Secret", secret: { name: s.secretName, key: "accessToken" } } }
    : { PULUMI_CONFIG_PASSPHRASE: { type: "Secret", secret: { name: s.secretName, key: "passphrase" } } };
  if (s.clientId) envRefs.AZURE_CLIENT_ID = { type: "Literal", literal: { value: s.clientId } };
  return {
    apiVersion: STACK_API_VERSION,
    kind: STACK_KIND,
    metadata: {
      name: stackResourceName(s.namePrefix, stack),
      namespace: s.namespace,
      labels: {
        "app.kubernetes.io/name": "stackwarden",
        "app.kubernetes.io/managed-by": "stackwarden",
        [STACK_LABEL]: stackResourceName("", stack),
      },
    },
    spec: {
      stack: s.org ? `${s.org}/${stack}` : stack,
      projectRepo: source.repo,
      branch: source.branch,
      repoDir: source.repoDir,
      shallow: true,
      ...(s.backend && !isPulumiCloud(s.backend) ? { backend: s.backend } : {}),
      refresh: true,
      continueResyncOnCommitMatch: s.driftRepair,
      resyncFrequencySeconds: s.resyncSeconds,
      destroyOnFinalize: false,
      serviceAccountName: s.serviceAccount,
      envRefs,
      workspaceTemplate: {
        spec: {
          image: s.image,
          // Azure workload identity: the webhook injects the federated token for pods with this label.
          podTemplate: { metadata: { labels: { "azure.workload.identity/use": "true" } } },
        },
      },
    },
  };
}
