/**
 * Types of the Instance Metadata Service, from specs/imds/<version>/imds.json (2020-10-01 is the newest).
 * Every value is a string on the wire, even numbers and booleans, as the spec declares.
 */
export const IMDS_SPEC = "imds/2020-10-01/imds.json";
/** The api-version the client sends. */
export const IMDS_API_VERSION = "2020-10-01";
/**
 * The versions whose spec specs/imds publishes (responses are validated against them). IMDS serves
 * more: the documented list is in api-versions.ts, and the emulator accepts every version there.
 */
export const IMDS_SPEC_VERSIONS = [
  "2018-10-01",
  "2019-02-01",
  "2019-03-11",
  "2019-04-30",
  "2019-06-01",
  "2019-06-04",
  "2019-08-01",
  "2019-08-15",
  "2019-11-01",
  "2020-06-01",
  "2020-07-15",
  "2020-09-01",
  "2020-10-01",
] as const;

export interface ImdsPlan {
  name?: string;
  publisher?: string;
  product?: string;
}
export interface ImdsTag {
  name?: string;
  value?: string;
}

export interface ImdsCompute {
  azEnvironment?: string;
  isHostCompatibilityLayerVm?: string;
  licenseType?: string;
  location?: string;
  name?: string;
  offer?: string;
  osProfile?: { adminUsername?: string; computerName?: string; disablePasswordAuthentication?: string };
  osType?: string;
  placementGroupId?: string;
  plan?: ImdsPlan;
  publicKeys?: { path?: string; keyData?: string }[];
  platformFaultDomain?: string;
  platformUpdateDomain?: string;
  provider?: string;
  publisher?: string;
  resourceGroupName?: string;
  resourceId?: string;
  securityProfile?: { secureBootEnabled?: string; virtualTpmEnabled?: string };
  sku?: string;
  storageProfile?: Record<string, unknown>;
  subscriptionId?: string;
  tags?: string;
  tagsList?: ImdsTag[];
  version?: string;
  vmId?: string;
  vmScaleSetName?: string;
  vmSize?: string;
  zone?: string;
  [extra: string]: unknown;
}

export interface ImdsNetworkInterface {
  ipv4?: { ipAddress?: { privateIpAddress?: string; publicIpAddress?: string }[]; subnet?: { address?: string; prefix?: string }[] };
  ipv6?: { ipAddress?: { privateIpAddress?: string }[] };
  macAddress?: string;
}

/** Instances_GetMetadata */
export interface ImdsInstance {
  compute?: ImdsCompute;
  network?: { interface?: ImdsNetworkInterface[] };
}

/** Attested_GetDocument */
export interface ImdsAttestedData {
  signature?: string;
  encoding?: string;
}

/** Identity_GetToken: all fields are strings; times are Unix seconds. */
export interface ImdsTokenResponse {
  access_token?: string;
  expires_in?: string;
  expires_on?: string;
  ext_expires_in?: string;
  not_before?: string;
  resource?: string;
  token_type?: string;
  client_id?: string;
  object_id?: string;
  msi_res_id?: string;
}

/** Identity_GetInfo */
export interface ImdsIdentityInfo {
  tenantId?: string;
}

/** The content signed inside the attested document (PKCS#7 SignedData). */
export interface ImdsAttestedContent {
  nonce: string;
  plan: ImdsPlan;
  timeStamp: { createdOn: string; expiresOn: string };
  vmId: string;
  licenseType: string;
  subscriptionId: string;
  sku: string;
}
