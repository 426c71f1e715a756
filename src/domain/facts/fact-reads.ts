import type { AnswerOf, ParamsOf, ReadNames } from "../../platform/arm/arm-operation";
import type { ArmRead } from "../../platform/arm/arm-read";
import type { ArmReadTable } from "../../services/arm-reads";

/** A read's name: the spec's operationId of a GET row of a service's operation table (`Servers_Get`). */
export type ReadName = ReadNames<ArmReadTable>;
/** The path parameters a read takes, as its spec names them (`{ subscriptionId, resourceGroupName, serverName }`). */
export type ReadParams<N extends ReadName> = ParamsOf<ArmReadTable[N]>;
/** What a read answers: the object, or every item of every page of a list. */
export type ReadAnswer<N extends ReadName> = AnswerOf<ArmReadTable[N]>;

/**
 * The cloud's answer about the one resource a failed read asked for (403, 404, a 5xx that
 * outlasted the retries …), as the port tells it: plain data, whatever the transport's errors are.
 */
export interface FailedRead {
  /** The HTTP status. */
  status: number;
  /** The service's error code (`AuthorizationFailed`, `ResourceNotFound` …). */
  code: string;
  /** The service's message, as it answered it. */
  message: string;
  /** The spec's operation that failed. */
  operation: string;
  /** Resource Manager's id for the call, when it answered one. */
  requestId?: string;
}

/**
 * What the fact kinds read Resource Manager through: any operation of the services' operation
 * tables, by its name (`reads.read("FirewallRules_ListByServer", { subscriptionId, resourceGroupName,
 * serverName })`), with the typed clients' token, retries, pacing and tolerant reading. Adding a read
 * is a row of its service's table (`src/services/<api>/operations.ts`), never a method here or on a
 * client. The client set answers it (`src/clients/client-set.ts`); a test may hand over its own.
 */
export interface FactReads {
  /** The read's answer with its receipt (when, which operation, Resource Manager's request id). Failures are thrown. */
  read<N extends ReadName>(operation: N, params: ReadParams<N>, signal?: AbortSignal): Promise<ArmRead<ReadAnswer<N>>>;
  /**
   * What a thrown failure of a read is, when it is the cloud's answer about the resource asked for
   * (an HTTP error other than 401); undefined for anything else (no answer at all, no credential,
   * a refused token, a cancellation), which the caller rethrows.
   */
  failureOf(e: unknown): FailedRead | undefined;
}
