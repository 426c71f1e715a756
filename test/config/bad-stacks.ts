/** Bad stack files and where their one-line error must point. Shared by the loader and CLI tests. */
export const G = "00000000-0000-0000-0000-000000000000";
export const HEAD = `config:\n  stackwarden:subscriptionId: ${G}\n`;
export const DB = (extra = "") => `    - resourceGroup: rg\n      server: s1\n      database: orders\n      transparentDataEncryption: Enabled\n${extra}`;

/** [name, stack text, line, column, key path fragment, problem fragment] */
export const BAD: [string, string, number, number, string, string][] = [
  ["missing subscription", `config:\n  stackwarden:databases: []\n`, 2, 3, "config", 'missing required key "stackwarden:subscriptionId"'],
  ["no config at all", `encryptionsalt: v1:abc\n`, 1, 1, "config", "missing"],
  ["config not a mapping", `config: [a, b]\n`, 1, 9, "config", "must be a mapping"],
  ["root not a mapping", `- just\n- a list\n`, 1, 1, "", "must be a mapping"],
  ["bad GUID", `config:\n  stackwarden:subscriptionId: not-a-guid\n`, 2, 31, "config.stackwarden:subscriptionId", "must match pattern"],
  ["subscription a number", `config:\n  stackwarden:subscriptionId: 12\n`, 2, 31, "config.stackwarden:subscriptionId", "must be string"],
  ["unknown stackwarden key", `${HEAD}  stackwarden:databse: []\n`, 3, 3, "config.stackwarden:databse", "unknown key"],
  ["databases not a list", `${HEAD}  stackwarden:databases: orders\n`, 3, 26, "config.stackwarden:databases", "must be array"],
  ["unknown key in a database", `${HEAD}  stackwarden:databases:\n${DB("      encrypted: true\n")}`, 8, 7, "config.stackwarden:databases[0].encrypted", "unknown key"],
  ["wrong enum", `${HEAD}  stackwarden:databases:\n    - { resourceGroup: rg, server: s1, database: orders, transparentDataEncryption: On }\n`, 4, 85, "config.stackwarden:databases[0].transparentDataEncryption", '"Enabled", "Disabled"'],
  ["missing database name", `${HEAD}  stackwarden:databases:\n    - { resourceGroup: rg, server: s1, transparentDataEncryption: Enabled }\n`, 4, 7, "config.stackwarden:databases[0]", 'missing required key "database"'],
  ["server a number", `${HEAD}  stackwarden:databases:\n    - { resourceGroup: rg, server: 7, database: d, transparentDataEncryption: Enabled }\n`, 4, 36, "config.stackwarden:databases[0].server", "must be string"],
  ["name with a slash", `${HEAD}  stackwarden:databases:\n    - { resourceGroup: rg, server: a/b, database: d, transparentDataEncryption: Enabled }\n`, 4, 36, "config.stackwarden:databases[0].server", "must match pattern"],
  ["serviceObjective empty", `${HEAD}  stackwarden:databases:\n${DB('      serviceObjective: ""\n')}`, 8, 25, "config.stackwarden:databases[0].serviceObjective", "must NOT have fewer than 1 characters"],
  ["duplicate database, other case", `${HEAD}  stackwarden:databases:\n${DB()}    - { resourceGroup: RG, server: S1, database: Orders, transparentDataEncryption: Disabled }\n`, 8, 7, "config.stackwarden:databases[1]", "duplicate database"],
  ["duplicate pool", `${HEAD}  stackwarden:elasticPools:\n    - { resourceGroup: rg, server: s1, elasticPool: p }\n    - { resourceGroup: rg, server: s1, elasticPool: p }\n`, 5, 7, "config.stackwarden:elasticPools[1]", "duplicate elastic pool"],
  ["unknown key in a pool", `${HEAD}  stackwarden:elasticPools:\n    - { resourceGroup: rg, server: s1, elasticPool: p, size: 3 }\n`, 4, 56, "config.stackwarden:elasticPools[0].size", "unknown key"],
  ["batch not a mapping", `${HEAD}  stackwarden:batch: [eastus]\n`, 3, 22, "config.stackwarden:batch", "must be object"],
  ["bad location", `${HEAD}  stackwarden:batch:\n    locations: [East US]\n`, 4, 17, "config.stackwarden:batch.locations[0]", "must match pattern"],
  ["unknown policy rule", `${HEAD}  stackwarden:policies:\n    sql-tde-disabled: { enforcementLevel: advisory }\n`, 4, 5, "config.stackwarden:policies.sql-tde-disabled", "unknown key"],
  ["bad enforcement level", `${HEAD}  stackwarden:policies:\n    sql-tde-enabled: { enforcementLevel: strict }\n`, 4, 42, "config.stackwarden:policies.sql-tde-enabled.enforcementLevel", '"advisory", "mandatory", "disabled"'],
  ["threshold above 1", `${HEAD}  stackwarden:policies:\n    batch-quota-headroom: { threshold: 1.5 }\n`, 4, 40, "config.stackwarden:policies.batch-quota-headroom.threshold", "must be <= 1"],
  ["minConfidence a string", `${HEAD}  stackwarden:policies:\n    sql-tier-advisor-drift: { minConfidence: high }\n`, 4, 46, "config.stackwarden:policies.sql-tier-advisor-drift.minConfidence", "must be number"],
  ["exemption without reason", `${HEAD}  stackwarden:exemptions:\n    - { resourceId: /subscriptions/${G}/x }\n`, 4, 7, "config.stackwarden:exemptions[0]", 'missing required key "reason"'],
  ["exemption bad date", `${HEAD}  stackwarden:exemptions:\n    - { resourceId: /subscriptions/${G}/x, reason: r, expires: 31/01/2027 }\n`, 4, 96, "config.stackwarden:exemptions[0].expires", 'must match format "date"'],
  ["secure value without its variable", `config:\n  stackwarden:subscriptionId:\n    secure: v1:AAAABBBB\n`, 3, 5, "config.stackwarden:subscriptionId", "STACKWARDEN_SUBSCRIPTION_ID"],
  ["secure value inside a structure", `${HEAD}  stackwarden:databases:\n    - resourceGroup: rg\n      server:\n        secure: v1:abc\n      database: d\n      transparentDataEncryption: Enabled\n`, 6, 9, "config.stackwarden:databases[0].server", "STACKWARDEN_DATABASES"],
  ["bad YAML: unclosed flow", `${HEAD}  stackwarden:databases: [ { resourceGroup: rg\n`, 4, 1, "", "invalid YAML"],
  ["bad YAML: tab indentation", `config:\n\tstackwarden:subscriptionId: ${G}\n`, 2, 1, "", "invalid YAML"],
  ["bad YAML: duplicate key", `${HEAD}  stackwarden:subscriptionId: ${G}\n`, 3, 3, "", "invalid YAML"],
];

