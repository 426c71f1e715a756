/**
 * The api-versions the Instance Metadata Service serves, and since when each operation exists.
 *
 * Source: Microsoft's IMDS documentation, "Azure Instance Metadata Service"
 * (https://learn.microsoft.com/azure/virtual-machines/instance-metadata-service, section
 * "Versioning" > "Supported API versions", and the "Version introduced" column of "Endpoint
 * categories"), as published in MicrosoftDocs/azure-compute-docs,
 * articles/virtual-machines/instance-metadata-service.md (ms.date 04/11/2023, list up to 2025-04-07).
 *
 * The spec folders under specs/imds are only part of this list (2018-10-01 … 2020-10-01), while
 * Microsoft's managed-identity documentation and the Azure SDKs (azure-identity for JS, Python,
 * .NET and Go, MSAL) ask for tokens at 2018-02-01: a client may send any version listed here.
 */
export const IMDS_DOCUMENTED_VERSIONS = [
  "2017-03-01",
  "2017-04-02",
  "2017-08-01",
  "2017-10-01",
  "2017-12-01",
  "2018-02-01",
  "2018-04-02",
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
  "2020-12-01",
  "2021-01-01",
  "2021-02-01",
  "2021-03-01",
  "2021-05-01",
  "2021-08-01",
  "2021-10-01",
  "2021-11-01",
  "2021-11-15",
  "2021-12-13",
  "2023-07-01",
  "2023-11-15",
  "2024-03-15",
  "2024-07-17",
  "2025-04-07",
] as const;

export type ImdsApiVersion = (typeof IMDS_DOCUMENTED_VERSIONS)[number];

/** The IMDS endpoint categories the emulator serves, by the path under `/metadata`. */
export type ImdsCategory = "instance" | "attested" | "identity";

/** "Version introduced" of each category, from the same table: a category answers no older version. */
export const IMDS_CATEGORY_SINCE: Record<ImdsCategory, ImdsApiVersion> = {
  instance: "2017-04-02",
  attested: "2018-10-01",
  identity: "2018-02-01",
};

/** The versions a category accepts: every documented version from the one it was introduced in. */
export function imdsVersionsFor(category: ImdsCategory): readonly ImdsApiVersion[] {
  const since = IMDS_CATEGORY_SINCE[category];
  return IMDS_DOCUMENTED_VERSIONS.filter((v) => v >= since);
}

/** The three newest versions, newest first: what IMDS lists in `newest-versions` when a version is missing or wrong. */
export const IMDS_NEWEST_VERSIONS: readonly ImdsApiVersion[] = [...IMDS_DOCUMENTED_VERSIONS].reverse().slice(0, 3);
