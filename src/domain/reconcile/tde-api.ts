/** The slice of the SQL client the TDE reconciler needs (SqlClient satisfies it). */
export interface TdeDatabaseRef {
  subscriptionId: string;
  resourceGroup: string;
  server: string;
  database: string;
}

export type TdeStatus = "Enabled" | "Disabled";

export interface TdeResource {
  id?: string;
  name?: string;
  /** The TDE configuration's location (`East US`), where the API sends one. */
  location?: string;
  properties?: { status?: string };
}

export interface TdeActivityResource {
  id?: string;
  properties?: { status?: string; percentComplete?: number; serverName?: string; databaseName?: string };
}

export interface TdeApi {
  getTransparentDataEncryption(db: TdeDatabaseRef, signal?: AbortSignal): Promise<TdeResource>;
  putTransparentDataEncryption(db: TdeDatabaseRef, status: TdeStatus, signal?: AbortSignal): Promise<TdeResource>;
  listTransparentDataEncryptionActivities(db: TdeDatabaseRef, signal?: AbortSignal): Promise<TdeActivityResource[]>;
}
