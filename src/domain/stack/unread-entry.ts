import type { SourceLocation } from "../../platform/yaml/source-location";

/**
 * A resource the stack names whose read the cloud answered with an error: 404 when the cloud has
 * no such resource (or its server or group), 403, a 5xx that outlasted the retries. Every command
 * that reads it gives the same answer: one line at its stack-file position, the other resources
 * still judged, and an exit code that says the stack names something that could not be read.
 */
export interface UnreadEntry {
  /** What it is, in words: `database`, `elastic pool`. */
  kind: string;
  /** Its ARM id. */
  id: string;
  /** `rg/server/db`. */
  label: string;
  /** Where the stack names it. */
  source?: SourceLocation;
  /** The spec's operation that failed. */
  operation: string;
  /** The HTTP status. */
  status: number;
  code: string;
  /** The service's message. */
  message: string;
}

/** What the cloud answered about the one resource a failed read asked for (the read port's classification of the failure). */
export type ResourceAnswer = Pick<UnreadEntry, "operation" | "status" | "code" | "message">;

/**
 * The entry for a failed read of one resource the stack names, from the cloud's answer about it
 * (`FactReads.failureOf`: an HTTP error other than 401; anything else stops the command).
 */
export function unreadEntryOf(answer: ResourceAnswer, subject: Pick<UnreadEntry, "kind" | "id" | "label" | "source">): UnreadEntry {
  return { ...subject, operation: answer.operation, status: answer.status, code: answer.code, message: answer.message };
}

/** What went wrong, in words: a 404 says the cloud has no such resource and what to do. */
export function unreadProblem(u: Pick<UnreadEntry, "kind" | "status" | "code" | "message">): string {
  if (u.status === 404) return `the cloud has no such ${u.kind} (${u.code}: ${u.message}); fix the stack entry, or create the ${u.kind}`;
  return `it could not be read (HTTP ${u.status} ${u.code}: ${u.message})`;
}

/** `stacks/Pulumi.dev.yaml:12:7: database rg/server/db: the cloud has no such database …`: the one line every command prints. */
export function unreadLine(u: UnreadEntry): string {
  const at = u.source ? `${u.source.file}:${u.source.line}:${u.source.column}: ` : "";
  return `${at}${u.kind} ${u.label}: ${unreadProblem(u)}`;
}

/** An entry as JSON reports list it under `errors`: the id, where the stack names it, the answer, and the problem in words. */
export function unreadDocument(u: UnreadEntry) {
  return {
    id: u.id,
    ...(u.source ? { file: u.source.file, line: u.source.line, column: u.source.column } : {}),
    operation: u.operation,
    status: u.status,
    code: u.code,
    message: unreadProblem(u),
  };
}
