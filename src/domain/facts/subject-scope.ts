/**
 * What one fact is about, as its kind declares it:
 * - `database`: a SQL database of the stack (the fact's `id` is the database's ARM id);
 * - `server`: a SQL server of the stack's databases (`id`: the server's ARM id);
 * - `vault`, `key`: a Key Vault, a Key Vault key;
 * - `location`: a subscription's location (Batch AI usages);
 * - `artifact`: a file the stack ships;
 * - `probe`: a certificate probe of the stack;
 * - `place`: a located resource or a site of the stack, placed in a country.
 */
export type SubjectScope = "database" | "server" | "vault" | "key" | "location" | "artifact" | "probe" | "place";

/** Every scope a kind may declare. */
export const SUBJECT_SCOPES: readonly SubjectScope[] = ["database", "server", "vault", "key", "location", "artifact", "probe", "place"];
