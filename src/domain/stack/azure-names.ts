/**
 * Azure's naming rules for the resources a stack file names, as JSON Schema fragments, so a name
 * Azure can never accept is refused at its line instead of reaching the API as a 404.
 *
 * Sources:
 * - "Naming rules and restrictions for Azure resources" (Microsoft Learn,
 *   azure-resource-manager/management/resource-name-rules): Microsoft.Resources/resourcegroups,
 *   Microsoft.Sql/servers, servers/databases, servers/elasticPools.
 * - The Batch AI 2018-05-01 spec (specs/batchai/BatchAI.json, its path parameters): workspace,
 *   cluster, experiment, job and file server names (1-64 of `[-\w_]`), and `resourceGroupName`
 *   (`^[-\w\._]+$`: no parentheses, unlike ARM's general rule, so a Batch AI resource group obeys both).
 */

export interface AzureNameRule {
  /** What the name names, for messages: `resource group`, `SQL server` … */
  what: string;
  minLength: number;
  maxLength: number;
  /** An ECMAScript pattern (ajv compiles it with the `u` flag). */
  pattern: string;
  /** The rule in words, for error messages and the schema's description. */
  rule: string;
}

/** Letters and digits as .NET's Char.IsLetterOrDigit counts them (Lu, Ll, Lt, Lm, Lo, Nd). */
const LETTER_OR_DIGIT = "\\p{Lu}\\p{Ll}\\p{Lt}\\p{Lm}\\p{Lo}\\p{Nd}";
/** What SQL databases and elastic pools cannot hold: `<>*%&:\/?` and control characters. */
const SQL_FORBIDDEN = "<>*%&:\\\\/?\\p{Cc}";

export const AZURE_NAME_RULES = {
  resourceGroup: {
    what: "resource group",
    minLength: 1,
    maxLength: 90,
    pattern: `^[${LETTER_OR_DIGIT}_().-]*[${LETTER_OR_DIGIT}_()-]$`,
    rule: "1-90 letters, digits, underscores, hyphens, periods and parentheses, not ending with a period",
  },
  batchResourceGroup: {
    what: "resource group",
    minLength: 1,
    maxLength: 90,
    pattern: "^[-A-Za-z0-9_.]*[-A-Za-z0-9_]$",
    rule: "1-90 letters, digits, underscores, hyphens and periods, not ending with a period (Batch AI takes no parentheses)",
  },
  sqlServer: {
    what: "SQL server",
    minLength: 1,
    maxLength: 63,
    pattern: "^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$",
    rule: "1-63 lower-case letters, digits and hyphens, not starting or ending with a hyphen",
  },
  sqlDatabase: {
    what: "database",
    minLength: 1,
    maxLength: 128,
    pattern: `^[^${SQL_FORBIDDEN}]*[^${SQL_FORBIDDEN}. ]$`,
    rule: "1-128 characters without <>*%&:\\/? or control characters, not ending with a period or a space",
  },
  sqlElasticPool: {
    what: "elastic pool",
    minLength: 1,
    maxLength: 128,
    pattern: `^[^${SQL_FORBIDDEN}]*[^${SQL_FORBIDDEN}. ]$`,
    rule: "1-128 characters without <>*%&:\\/? or control characters, not ending with a period or a space",
  },
  batchWorkspace: batchName("Batch AI workspace"),
  batchCluster: batchName("Batch AI cluster"),
  batchExperiment: batchName("Batch AI experiment"),
  batchFileServer: batchName("Batch AI file server"),
} satisfies Record<string, AzureNameRule>;

function batchName(what: string): AzureNameRule {
  return { what, minLength: 1, maxLength: 64, pattern: "^[-A-Za-z0-9_]+$", rule: "1-64 letters, digits, hyphens and underscores" };
}

/**
 * The JSON Schema of a name that obeys `rule`. Its `x-rule` annotation (a keyword validators
 * ignore) states the rule, so that an error can say which rule a value breaks (see describeAjvError).
 */
export function azureNameSchema(rule: AzureNameRule) {
  return {
    type: "string",
    minLength: rule.minLength,
    maxLength: rule.maxLength,
    pattern: rule.pattern,
    description: `${rule.what} name: ${rule.rule}`,
    "x-rule": `${rule.what} name: ${rule.rule}`,
  } as const;
}
