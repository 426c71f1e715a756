/**
 * Where one value read from Resource Manager came from: enough for an auditor to find the call in
 * Azure's logs (the `x-ms-request-id` Resource Manager answered with, and the
 * `x-ms-client-request-id` sent) and to know when it was read. Holds no credential and no body.
 */
export interface ReadReceipt {
  /** The spec's operationId (`EncryptionProtectors_Get`). */
  operation: string;
  /** The path read, without the query (`/subscriptions/…/encryptionProtector/current`). */
  path: string;
  /** The api-version sent. */
  apiVersion: string;
  /** When the answer arrived (ISO 8601, UTC). */
  readAt: string;
  /** The HTTP status of the answer. */
  status: number;
  /** Resource Manager's id for the call (`x-ms-request-id`), when it sent one. */
  requestId?: string;
  /** The id the client sent with the call (`x-ms-client-request-id`). */
  clientRequestId?: string;
}

/** One object read from Resource Manager, with the receipt of its read. */
export interface ArmRead<T> {
  value: T;
  receipt: ReadReceipt;
}
