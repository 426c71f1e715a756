import type { ArmOperationTable } from "../platform/arm/arm-operation";
import { AUTHORIZATION_OPERATIONS_TABLE } from "./authorization/operations";
import { BATCHAI_OPERATIONS_TABLE } from "./batchai/operations";
import { KEYVAULT_OPERATIONS_TABLE } from "./keyvault/operations";
import { SQL_OPERATIONS_TABLE } from "./sql/operations";

/**
 * Every Resource Manager service's operation table (`src/services/<api>/operations.ts`), one line
 * each: what the client set's `reads` sends by name, and what test/services/operation-tables.test.ts
 * checks row by row against the spec documents.
 */
export const ARM_OPERATION_TABLES = {
  sql: SQL_OPERATIONS_TABLE,
  keyVault: KEYVAULT_OPERATIONS_TABLE,
  authorization: AUTHORIZATION_OPERATIONS_TABLE,
  batchAi: BATCHAI_OPERATIONS_TABLE,
} as const;

type Tables = (typeof ARM_OPERATION_TABLES)[keyof typeof ARM_OPERATION_TABLES];
type Merged<U> = (U extends unknown ? (u: U) => void : never) extends (m: infer M) => void ? M : never;

/** Every operation of every table, by its operationId (the names a fact kind reads by, `FactReads`). */
export type ArmReadTable = Merged<Tables>;

/** The tables merged into one, by operationId; an operationId declared twice is a programming error. */
function merged(tables: readonly ArmOperationTable[]): ArmReadTable {
  const all: Record<string, ArmOperationTable[string]> = {};
  for (const table of tables)
    for (const [name, row] of Object.entries(table)) {
      if (Object.hasOwn(all, name)) throw new Error(`the operation ${name} is declared in two operation tables`);
      all[name] = row;
    }
  return all as ArmReadTable;
}

/** Every operation of every table, by its operationId. */
export const ARM_READS: ArmReadTable = merged(Object.values(ARM_OPERATION_TABLES));
