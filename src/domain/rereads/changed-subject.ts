import type { SubjectScope } from "../facts/subject-scope";

/** The subject of the facts a changed resource belongs to: its scope and id (lower-cased ARM id). */
export interface ChangedSubject {
  scope: SubjectScope;
  /** The subject's ARM id, lower-cased: the database of a TDE setting, the server of a protector. */
  id: string;
}

/**
 * Which subject each resource type's changes belong to, deepest first: a database's settings (its
 * `transparentDataEncryption/current`) are the database's, a server's children but databases (its
 * `encryptionProtector`, its `keys`) the server's, a key's versions the key's. The namespace is not
 * compared, so the product's described spelling of Microsoft.Sql matches too.
 */
const SUBJECTS: { scope: SubjectScope; pattern: RegExp }[] = [
  {
    scope: "database",
    pattern: /^(\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/providers\/[^/]+\/servers\/[^/]+\/databases\/[^/]+)(\/|$)/,
  },
  { scope: "server", pattern: /^(\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/providers\/[^/]+\/servers\/[^/]+)(\/|$)/ },
  {
    scope: "key",
    pattern: /^(\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/providers\/microsoft\.keyvault\/vaults\/[^/]+\/keys\/[^/]+)(\/|$)/,
  },
  { scope: "vault", pattern: /^(\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/providers\/microsoft\.keyvault\/vaults\/[^/]+)(\/|$)/ },
];

/** The subject a changed resource belongs to; undefined for a resource no fact kind is about. */
export function changedSubjectOf(resourceId: string): ChangedSubject | undefined {
  const id = resourceId.toLowerCase().replace(/\/+$/, "");
  for (const s of SUBJECTS) {
    const m = s.pattern.exec(id);
    // SQL ids are compared in Azure's spelling (the stack's databases are keyed so: reread-plan.ts).
    if (m) return { scope: s.scope, id: m[1].replace(/\/providers\/[^/]+\/servers\//, "/providers/microsoft.sql/servers/") };
  }
  return undefined;
}

/**
 * The scopes whose facts a change to a subject of `scope` can alter: a server's protector names
 * the vault and the key (switching it changes which are judged), a vault holds its keys.
 */
export const SCOPES_A_CHANGE_REACHES: Readonly<Record<SubjectScope, readonly SubjectScope[]>> = {
  database: ["database"],
  server: ["server", "vault", "key"],
  vault: ["vault", "key"],
  key: ["key"],
  location: ["location"],
  artifact: ["artifact"],
  probe: ["probe"],
  place: ["place"],
};
