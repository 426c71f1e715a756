import { randomBytes } from "node:crypto";
import {
  AccountSASPermissions,
  AccountSASResourceTypes,
  AccountSASServices,
  BlobServiceClient,
  ContainerSASPermissions,
  generateAccountSASQueryParameters,
  generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
} from "@azure/storage-blob";
import { AZURITE_KEY } from "../../helpers/azurite";

const ACCOUNT = "devstoreaccount1";
const key = () => new StorageSharedKeyCredential(ACCOUNT, AZURITE_KEY);
const inAnHour = () => new Date(Date.now() + 3_600_000);

/** A new container's name. */
export const freshContainer = () => `sas-${randomBytes(6).toString("hex")}`;

/** Creates a container on Azurite with the account key (what an administrator does before handing out a container SAS). */
export async function createContainer(accountUrl: string, container: string): Promise<void> {
  await new BlobServiceClient(accountUrl, key()).getContainerClient(container).create();
}

/** A service SAS scoped to one container (`sr=c`), signed with the account key, as the portal or `az storage container generate-sas` makes it. */
export function containerSas(container: string, permissions = "racwdl", expiresOn = inAnHour()): string {
  return generateBlobSASQueryParameters(
    { containerName: container, permissions: ContainerSASPermissions.parse(permissions), expiresOn },
    key(),
  ).toString();
}

/** An account SAS for the Blob service (`ss=b`), as `az storage account generate-sas` makes it. */
export function accountSas(permissions = "racwdl", resourceTypes = "sco"): string {
  return generateAccountSASQueryParameters(
    {
      services: AccountSASServices.parse("b").toString(),
      resourceTypes: AccountSASResourceTypes.parse(resourceTypes).toString(),
      permissions: AccountSASPermissions.parse(permissions),
      expiresOn: inAnHour(),
    },
    key(),
  ).toString();
}
