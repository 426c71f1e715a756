import type { AuditLog, DocumentStore, StateStores } from "./state-ports";

const nothing = async () => undefined;
const refuse = async (): Promise<never> => {
  throw new Error("this gathering keeps no state: nothing may be written");
};

/**
 * State for a gathering that reads none (`where` places resources: no kind it asks for reads
 * probe results or the audit trail): every read finds nothing, any write is a programming error.
 */
export const NO_KEPT_STATE: Pick<StateStores, "probes" | "audit"> = {
  probes: {
    get: nothing,
    put: refuse,
    delete: refuse,
    list: async () => [],
    appendLine: refuse,
    touch: refuse,
    where: (name) => `(no kept state) ${name}`,
  } satisfies DocumentStore,
  audit: {
    read: nothing,
    end: nothing,
    recent: async () => [],
    readPending: nothing,
    writePending: refuse,
    append: refuse,
    where: (name) => `(no kept state) ${name}`,
  } satisfies AuditLog,
};
