import type { ReadReceipt } from "../../platform/arm/arm-read";
import { parseResourceId, sameResourceId } from "../../platform/arm/resource-id";
import type { SourceLocation } from "../../platform/yaml/source-location";
import type { StackConfig } from "../stack/stack-config";
import type { UnreadEntry } from "../stack/unread-entry";
import { carrierOf, type Carrier, type CarrierToken } from "./carrier";
import type { FactClients } from "./fact-clients";
import type { ReadFailure } from "./read-failure";

/** A data source's string inputs, by name. */
export type DataSourceInputs = Record<string, string>;

/** What one read of a data source gave. */
export interface DataSourceRead {
  /** The data source's id: the ARM id of what it reads (of the collection, for a list). */
  id: string;
  /** The object or list as the API returned it; absent when `readError` says why there is none. */
  value?: unknown;
  /** Why it could not be read (403, 404, a vault Resource Manager does not list): sources that report it only. */
  readError?: ReadFailure;
  /** Outputs beside the value, named in `extraOutputs` (a vault's resource group, as the listing placed it). */
  extra?: Record<string, string>;
  /** The receipt of the read, when it answered: evidence the gathered facts carry (never an output). */
  receipt?: ReadReceipt;
}

/** One data source the Pulumi program registers. */
export interface DataSourceInstance {
  /** Its logical name in the stack. Users' state records it: a new name is a replace. */
  name: string;
  inputs: DataSourceInputs;
  /** The logical name of a resource it is read after (a TDE scan's activity after the TDE change). */
  after?: string;
  /** Where the stack file names what it reads: the line the facts gathered from it point at. */
  source?: SourceLocation;
}

/**
 * A read-only Pulumi resource, declared once: what it takes, what it reads and where its answer
 * goes, and which of them a stack registers. One provider serves them all
 * (src/interfaces/pulumi/data-source-resource.ts): create and read GET, update reads again, delete
 * touches nothing, diff reads again so a changed answer shows as drift. A fact kind whose facts
 * it carries declares it as its `carrier`; the others are listed in data-source-registry.ts.
 */
export interface DataSourceDeclaration {
  token: CarrierToken;
  /** What it reads, in a few words. */
  title: string;
  /** Required string inputs, in id order: a changed one replaces the resource. */
  inputs: readonly string[];
  /** Optional inputs that name what is read (a key's version): a changed one replaces it too. */
  optional?: readonly string[];
  /** Optional inputs carried to the outputs for the pack, never sent (the tier a stack intends): a changed one is an update. */
  carried?: readonly string[];
  /**
   * The output holding what the API returned. It differs from every input: a single object's input
   * (`workspace`) names it, so its output is `<input>Resource`.
   */
  output: string;
  /** Outputs a read adds beside `output` (`DataSourceRead.extra`). */
  extraOutputs?: readonly string[];
  /**
   * `reported`: a read that is refused or finds nothing (403, 404) is the output `readError`, which
   * the rules judge (a protector's key that was deleted is exactly what they must see), and a
   * refresh keeps it. Otherwise such a read fails `create`, and a 404 on refresh drops the resource.
   */
  unreadable?: "reported";
  /**
   * What the stack names that a read of these inputs is about (a database), when the cloud's answer
   * about it alone (a 404: no such database) is reported as unread while the others are still
   * judged (carried-gather.ts); without it such a failure fails the gathering. Asked only then.
   */
  about?(inputs: DataSourceInputs): Pick<UnreadEntry, "kind" | "id" | "label">;
  /** One read (one GET, or one paged list; a source that reports failures returns them as `readError`). */
  read(clients: FactClients, inputs: DataSourceInputs, signal?: AbortSignal): Promise<DataSourceRead>;
  /** The inputs an id names (an adoption by id, a refresh without inputs), or undefined when it names none of this source. */
  inputsFromId(id: string): DataSourceInputs | undefined;
  /** What a stack registers of it, from its config. */
  instances?(stack: StackConfig): DataSourceInstance[];
  /** What a stack registers of it once another source's outputs are read (a protector's vault and key). */
  follows?: {
    source: DataSource;
    /** Further sources whose outputs follow `source`'s in `read` (a database's own TDE protector names a key too). */
    also?: readonly DataSource[];
    /** From the outputs (`output`) of every registered instance of `source`, then of `also`'s, in registration order. */
    instances(read: readonly unknown[], stack: StackConfig): DataSourceInstance[];
  };
}

/** A declared data source: its declaration and its type token. */
export type DataSource = DataSourceDeclaration & Carrier;

/** Declares a data source; a token not `<module>:<Type>`, or an output named like an input, is a programming error. */
export function defineDataSource(declaration: DataSourceDeclaration): DataSource {
  const names = [...declaration.inputs, ...(declaration.optional ?? []), ...(declaration.carried ?? [])];
  for (const out of [declaration.output, ...(declaration.extraOutputs ?? []), "readError"]) {
    if (names.includes(out)) throw new Error(`data source ${declaration.token}: the output "${out}" is also an input`);
  }
  return { ...declaration, ...carrierOf(declaration.token) };
}

/**
 * The properties a read gives a data source's resource: its inputs, the extra outputs, what the API
 * returned (`output`) and why it could not be read (`readError`). The provider's resources carry
 * exactly these to the pack, and a kind's gathering (carried-gather.ts) hands the same to `fromResources`.
 */
export function dataSourceOutputs(
  source: Pick<DataSourceDeclaration, "output">,
  inputs: DataSourceInputs,
  r: DataSourceRead,
): Record<string, unknown> {
  return {
    ...inputs,
    ...r.extra,
    ...(r.value !== undefined ? { [source.output]: r.value } : {}),
    ...(r.readError ? { readError: r.readError } : {}),
  };
}

/** Whether a carrier is a data source (declared with `defineDataSource`). */
export function isDataSource(carrier: Carrier | undefined): carrier is DataSource {
  return !!carrier && typeof (carrier as Partial<DataSource>).read === "function";
}

/** A logical name from parts, lower-cased and joined by `-` (Pulumi names are unique within a stack). */
export function logicalName(...parts: string[]): string {
  return parts.join("-").toLowerCase();
}

/**
 * `inputsFromId` for a source whose id is an ARM path: `subscriptionId` and `resourceGroup` from
 * the id's scope, every other input from the segment of the type `segments` names
 * (`{ server: "servers" }`); the id must be exactly the one `idOf` gives for those inputs.
 */
export function inputsFromArmId(
  inputs: readonly string[],
  segments: Record<string, string>,
  idOf: (inputs: DataSourceInputs) => string,
): (id: string) => DataSourceInputs | undefined {
  return (id) => {
    const p = parseResourceId(id);
    const found: DataSourceInputs = {};
    for (const k of inputs) {
      const v =
        k === "subscriptionId"
          ? p?.subscriptionId
          : k === "resourceGroup"
            ? p?.resourceGroup
            : p?.segments.find((s) => s.type.toLowerCase() === segments[k]?.toLowerCase())?.name;
      if (v) found[k] = v;
    }
    return inputs.every((k) => found[k]) && sameResourceId(idOf(found), id) ? found : undefined;
  };
}
