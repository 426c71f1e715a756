/**
 * The type tokens of the resources that carry facts and reads to the policy pack, exactly as
 * users' Pulumi state records them. Pinned here rather than read from the declarations: a renamed
 * token is a replace (or a delete) in every existing stack, so tests must notice
 * (test/domain/facts/carriers.test.ts compares them with the declarations).
 */
export const TYPES = {
  tde: "pulumi-nodejs:dynamic/sql:TransparentDataEncryption",
  advisors: "pulumi-nodejs:dynamic/sql:ServiceTierAdvisors",
  tdeActivities: "pulumi-nodejs:dynamic/sql:TransparentDataEncryptionActivities",
  poolActivities: "pulumi-nodejs:dynamic/sql:ElasticPoolActivities",
  poolDatabaseActivities: "pulumi-nodejs:dynamic/sql:ElasticPoolDatabaseActivities",
  protector: "pulumi-nodejs:dynamic/sql:EncryptionProtector",
  database: "pulumi-nodejs:dynamic/sql:Database",
  keyVault: "pulumi-nodejs:dynamic/keyvault:Vault",
  vaultKey: "pulumi-nodejs:dynamic/keyvault:Key",
  server: "pulumi-nodejs:dynamic/sql:ServerIdentity",
  roleAssignments: "pulumi-nodejs:dynamic/authorization:VaultRoleAssignments",
  usages: "pulumi-nodejs:dynamic/batchai:Usages",
  workspace: "pulumi-nodejs:dynamic/batchai:Workspace",
  cluster: "pulumi-nodejs:dynamic/batchai:Cluster",
  fileServer: "pulumi-nodejs:dynamic/batchai:FileServer",
  experiment: "pulumi-nodejs:dynamic/batchai:Experiment",
  jobs: "pulumi-nodejs:dynamic/batchai:Jobs",
  artifactScan: "pulumi-nodejs:dynamic/artifacts:ArtifactScan",
  probe: "pulumi-nodejs:dynamic/certificates:CertificateProbe",
  residency: "pulumi-nodejs:dynamic/residency:Residency",
  databasesInScope: "pulumi-nodejs:dynamic/sql:DatabasesInScope",
} as const;
