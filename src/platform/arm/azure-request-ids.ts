import type { RequestIdHeaders } from "../http";

/**
 * Azure's request-id convention: a fresh `x-ms-client-request-id` on every call (the same on each
 * retry), and the service's own id for it in `x-ms-request-id`, which errors quote so that a
 * failure can be traced in Azure's logs. Resource Manager, IMDS and Microsoft Entra ID speak it,
 * and so does the local emulator, for every service it serves.
 */
export const AZURE_REQUEST_IDS: RequestIdHeaders = {
  client: "x-ms-client-request-id",
  response: ["x-ms-request-id"],
};
