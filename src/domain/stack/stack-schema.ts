import { registryVersion, ruleIds } from "../compliance/registry";
import { policiesSchema } from "../compliance/rule-settings";
import { PROBES_SCHEMA } from "../probes/probe-config";
import { AZURE_NAME_RULES as N, azureNameSchema as name } from "./azure-names";
import { SCOPE_SCHEMA } from "./stack-scope";

/** The schemas of the `stackwarden:` keys that do not depend on the registered rules. */
export const STATIC_KEY_SCHEMAS = {
  "stackwarden:subscriptionId": {
    type: "string",
    pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
    description: "required: the Azure subscription id (a GUID)",
    "x-rule": "subscription id: a GUID such as 00000000-0000-0000-0000-000000000000",
  },
  "stackwarden:keyVaultSubscriptions": {
    type: "array",
    uniqueItems: true,
    items: {
      type: "string",
      pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
      "x-rule": "subscription id: a GUID such as 00000000-0000-0000-0000-000000000000",
    },
    description:
      "optional, default []: further subscriptions (GUIDs) whose key vaults are searched, after stackwarden:subscriptionId, for the vault a customer-managed TDE protector's key URI names (Azure allows a key vault in any subscription of the tenant)",
  },
  "stackwarden:engine": {
    type: "string",
    enum: ["native", "pulumi"],
    description:
      "optional, default native: how the pipelines apply this stack: native (stackwarden apply) or pulumi (pulumi preview/up with the policy pack)",
  },
  "stackwarden:databases": {
    type: "array",
    description: "optional, default []: databases whose transparent data encryption is managed",
    items: {
      type: "object",
      additionalProperties: false,
      required: ["resourceGroup", "server", "database", "transparentDataEncryption"],
      properties: {
        subscriptionId: {
          type: "string",
          pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
          description:
            "optional, default stackwarden:subscriptionId: the database's subscription (an entry discover --write adopted from another subscription of stackwarden:scope)",
          "x-rule": "subscription id: a GUID such as 00000000-0000-0000-0000-000000000000",
        },
        resourceGroup: name(N.resourceGroup),
        server: name(N.sqlServer),
        database: name(N.sqlDatabase),
        transparentDataEncryption: { type: "string", enum: ["Enabled", "Disabled"], description: "required: the desired TDE status" },
        serviceObjective: {
          type: "string",
          minLength: 1,
          description: "optional: the intended service objective (e.g. S3), compared with the tier advisor",
        },
      },
    },
  },
  "stackwarden:scope": SCOPE_SCHEMA,
  "stackwarden:elasticPools": {
    type: "array",
    description: "optional, default []: elastic pools whose activity is read",
    items: {
      type: "object",
      additionalProperties: false,
      required: ["resourceGroup", "server", "elasticPool"],
      properties: { resourceGroup: name(N.resourceGroup), server: name(N.sqlServer), elasticPool: name(N.sqlElasticPool) },
    },
  },
  "stackwarden:batch": {
    type: "object",
    additionalProperties: false,
    description: "optional: Batch AI discovery",
    properties: {
      resourceGroups: {
        type: "array",
        items: name(N.batchResourceGroup),
        description: "optional: limit discovery to these; default every workspace of the subscription",
      },
      locations: {
        type: "array",
        items: {
          type: "string",
          pattern: "^[a-z0-9]+$",
          description: "an Azure location such as eastus",
          "x-rule": "Azure location: its name in lower-case letters and digits, such as eastus (not its display name, East US)",
        },
        description: "optional, default []: locations whose usages are read",
      },
      workspaces: {
        type: "array",
        description:
          "optional: workspaces the Pulumi program registers as data sources (the CLI's inventory discovers every workspace anyway)",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["resourceGroup", "workspace"],
          properties: {
            resourceGroup: name(N.batchResourceGroup),
            workspace: name(N.batchWorkspace),
            clusters: { type: "array", items: name(N.batchCluster) },
            experiments: {
              type: "array",
              items: name(N.batchExperiment),
              description: "each also registers the experiment's jobs as one data source",
            },
            fileServers: { type: "array", items: name(N.batchFileServer) },
          },
        },
      },
    },
  },
  "stackwarden:artifacts": {
    type: "object",
    additionalProperties: false,
    required: ["paths", "rules"],
    description: "optional: files the pipeline ships (job scripts, binaries), scanned by the binary analysis gate",
    properties: {
      paths: {
        type: "array",
        minItems: 1,
        items: { type: "string", minLength: 1 },
        description: "required: globs of the files, relative to the project directory (where Pulumi.yaml is): * ? ** [abc] {a,b}",
      },
      rules: {
        type: "array",
        minItems: 1,
        items: { type: "string", minLength: 1 },
        description: "required: YARA rule files (.yar, .yara) or folders of them, relative to the project directory",
      },
    },
  },
  "stackwarden:probes": PROBES_SCHEMA,
  "stackwarden:residency": {
    type: "object",
    additionalProperties: false,
    required: ["allowedCountries"],
    description:
      "optional: where data may live (the residency gate); when set, the stack's located resources and sites are judged, mandatory by default",
    properties: {
      allowedCountries: {
        type: "array",
        minItems: 1,
        items: { type: "string", pattern: "^[A-Za-z]{2}$", description: "an ISO 3166-1 alpha-2 code such as NL" },
        description: "required: the countries data may live in, as ISO 3166-1 alpha-2 codes (upper case)",
      },
      sites: {
        type: "array",
        description: "optional, default []: places named by address (backup sites, replicas), geocoded and placed in a country",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["name", "address"],
          properties: {
            name: { type: "string", minLength: 1, maxLength: 128, pattern: "^[^/\\\\?#]+$", description: "site name" },
            address: {
              type: "string",
              minLength: 1,
              maxLength: 512,
              description: "required: the postal address, with its country where it may be unclear",
            },
          },
        },
      },
    },
  },
  "stackwarden:exemptions": {
    type: "array",
    description: "optional: resources exempted from rules, shown in every report",
    items: {
      type: "object",
      additionalProperties: false,
      required: ["resourceId", "reason"],
      properties: {
        resourceId: {
          type: "string",
          pattern: "^(/subscriptions/|artifact:.)",
          description: "required: the ARM id of the exempted resource, or artifact:<path> for a file of stackwarden:artifacts",
        },
        rules: { type: "array", items: { type: "string" }, description: "optional, default every rule" },
        reason: { type: "string", minLength: 1, description: "required: why, for the audit trail" },
        expires: { type: "string", format: "date", description: "optional: YYYY-MM-DD; the exemption stops applying after this day" },
      },
    },
  },
} as const;

type KeysSchema = {
  type: "object";
  additionalProperties: false;
  required: string[];
  properties: Record<string, object>;
};
let cached: { version: number; schema: KeysSchema } | undefined;

/**
 * The one JSON Schema of the `stackwarden:` keys of a stack file. The CLI validates the YAML with
 * it, the Pulumi program validates `pulumi.Config` values with it. `stackwarden:policies` and the
 * rule ids of exemptions come from the rule registry.
 */
export function stackKeysSchema(): KeysSchema {
  if (cached?.version === registryVersion()) return cached.schema;
  const exemptions = STATIC_KEY_SCHEMAS["stackwarden:exemptions"];
  const scopeExemptions = SCOPE_SCHEMA.properties.exemptions;
  const ruleIdItems = { type: "string", enum: ruleIds() };
  const schema: KeysSchema = {
    type: "object",
    additionalProperties: false,
    required: ["stackwarden:subscriptionId"],
    properties: {
      ...STATIC_KEY_SCHEMAS,
      "stackwarden:policies": policiesSchema(),
      "stackwarden:exemptions": {
        ...exemptions,
        items: {
          ...exemptions.items,
          properties: {
            ...exemptions.items.properties,
            rules: { ...exemptions.items.properties.rules, items: ruleIdItems },
          },
        },
      },
      "stackwarden:scope": {
        ...SCOPE_SCHEMA,
        properties: {
          ...SCOPE_SCHEMA.properties,
          exemptions: {
            ...scopeExemptions,
            items: {
              ...scopeExemptions.items,
              properties: { ...scopeExemptions.items.properties, rules: { ...scopeExemptions.items.properties.rules, items: ruleIdItems } },
            },
          },
        },
      },
    },
  };
  cached = { version: registryVersion(), schema };
  return schema;
}
