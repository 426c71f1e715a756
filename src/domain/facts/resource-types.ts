/**
 * Type tokens of the Pulumi resources whose properties carry facts (the providers register them as
 * `pulumi-nodejs:dynamic/<module>:<Type>`): what the policy pack's fact kinds read.
 */
export const RESOURCE_TYPES = {
  tde: "pulumi-nodejs:dynamic/sql:TransparentDataEncryption",
  advisors: "pulumi-nodejs:dynamic/sql:ServiceTierAdvisors",
  usages: "pulumi-nodejs:dynamic/batchai:Usages",
  artifactScan: "pulumi-nodejs:dynamic/artifacts:ArtifactScan",
  probe: "pulumi-nodejs:dynamic/certificates:CertificateProbe",
  workspace: "pulumi-nodejs:dynamic/batchai:Workspace",
  cluster: "pulumi-nodejs:dynamic/batchai:Cluster",
  fileServer: "pulumi-nodejs:dynamic/batchai:FileServer",
  residency: "pulumi-nodejs:dynamic/residency:Residency",
  protector: "pulumi-nodejs:dynamic/sql:EncryptionProtector",
  keyVault: "pulumi-nodejs:dynamic/keyvault:Vault",
  vaultKey: "pulumi-nodejs:dynamic/keyvault:Key",
} as const;
