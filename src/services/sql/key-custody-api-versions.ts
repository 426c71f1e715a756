import { since } from "../keyvault/api-versions";

/**
 * The api-versions of Microsoft.Sql `servers/{server}/encryptionProtector` and `servers/{server}/keys`
 * that Azure's published SDKs send, and how each version's answers differ. The emulator accepts
 * exactly these (answering each in its shape). The client reads the protector at
 * SQL_ENCRYPTION_PROTECTORS_API_VERSION (2021-11-01) and server keys at SQL_KEY_CUSTODY_API_VERSION
 * (2015-05-01-preview), each checked against its spec folder shipped in specs/. 2021-11-01 is the
 * protector's first stable version with `autoRotationEnabled` (issue 33: rotation is judged); the SDKs
 * in use send it or a version with the same protector fields: Go's newest released armsql
 * (github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/sql/armsql v1.2.0 from the Go module proxy,
 * tag package-composite-v5) sends 2020-11-01-preview from encryptionprotectors_client.go, which has
 * `autoRotationEnabled` too; the JS @azure/arm-sql generated from TypeSpec
 * (sdk/sql/arm-sql/src/api/encryptionProtectors/operations.ts, azure-sdk-for-js commit
 * 9ef9879343d7c45c90ff31cceaba39359065f0bd) defaults to 2025-02-01-preview; Go's armsql at the repository
 * head to 2025-08-01-preview. A stable version was chosen over those previews; only `keyVersion`
 * (2025-01-01 on) is missing from it, and a protector named by a versioned URI does not need it.
 *
 * Where the versions were found (SDK sources read with the search tools in 2026):
 * - 2015-05-01-preview: azure-sdk-for-python azure-mgmt-sql (msrest generation)
 *   `operations/_encryption_protectors_operations.py` (`self.api_version = "2015-05-01-preview"`);
 *   azure-sdk-for-go services/preview/sql/mgmt/2015-05-01-preview/sql (encryptionprotectors.go,
 *   serverkeys.go) and the composite packages built on it (readme tags package-composite-v1..v3).
 * - 2020-11-01-preview: azure-sdk-for-go services/preview/sql/mgmt/v5.0/sql/encryptionprotectors.go
 *   (`const APIVersion = "2020-11-01-preview"`); azure-mgmt-sql 2.0.0 (EncryptionProtector and
 *   ServerKey gain `auto_rotation_enabled`).
 * - 2025-08-01-preview: azure-sdk-for-go sdk/resourcemanager/sql/armsql encryptionprotectors_client.go
 *   (`reqQP.Set("api-version", version20250801Preview)`), the newest an SDK sends.
 * - 2021-11-01 and 2023-08-01 (stable; named by the product contract) and every preview in between:
 *   published in azure-rest-api-specs (specification/sql/resource-manager/Microsoft.Sql/{preview,stable}/
 *   <version>/EncryptionProtectors.json and ServerKeys.json exist for each version below), generated into
 *   the SDKs that track the SQL composite packages (azure-mgmt-sql 4.0.0bN, armsql betas); Resource
 *   Manager accepts every published version, so an emulator that refused one would refuse a real client.
 * Not accepted: 2014-04-01 (these resources do not exist there: Resource Manager answers
 * InvalidApiVersionParameter), and anything newer than 2025-08-01-preview.
 *
 * Shapes (from each version's EncryptionProtectors.json / ServerKeys.json):
 * - up to 2020-08-01-preview: `subregion`, `serverKeyName`, `serverKeyType`, `uri`, `thumbprint` (+ key `creationDate`);
 * - 2020-11-01-preview on: + `autoRotationEnabled` (protector: settable; key: read-only);
 * - 2025-01-01 on: + `keyVersion` (the URI may then be versionless).
 */
export const SQL_KEY_CUSTODY_API_VERSIONS = [
  "2015-05-01-preview",
  "2020-02-02-preview",
  "2020-08-01-preview",
  "2020-11-01-preview",
  "2021-02-01-preview",
  "2021-05-01-preview",
  "2021-08-01-preview",
  "2021-11-01-preview",
  "2021-11-01",
  "2022-02-01-preview",
  "2022-05-01-preview",
  "2022-08-01-preview",
  "2022-11-01-preview",
  "2023-02-01-preview",
  "2023-05-01-preview",
  "2023-08-01-preview",
  "2023-08-01",
  "2024-05-01-preview",
  "2024-11-01-preview",
  "2025-01-01",
  "2025-02-01-preview",
  "2025-08-01-preview",
] as const;
export type SqlKeyCustodyApiVersion = (typeof SQL_KEY_CUSTODY_API_VERSIONS)[number];

/** What a version's protector and server keys carry beyond the 2015-05-01-preview fields. */
export interface SqlKeyCustodyShape {
  /** `properties.autoRotationEnabled` (2020-11-01-preview on). */
  autoRotationEnabled: boolean;
  /** `properties.keyVersion` (2025-01-01 on). */
  keyVersion: boolean;
}

/** The shape of an accepted version. */
export function sqlKeyCustodyShape(version: string): SqlKeyCustodyShape {
  return { autoRotationEnabled: since(version, "2020-11-01-preview"), keyVersion: since(version, "2025-01-01") };
}
