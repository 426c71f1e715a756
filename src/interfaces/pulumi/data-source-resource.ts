import { dataSourceOutputs, type DataSource, type DataSourceInputs } from "../../domain/facts/data-source";
import type { FactClients } from "../../domain/facts/fact-clients";
import { checkDataSourceInputSpec, type InputFailure } from "./data-source-inputs";
import { isNotFound } from "./not-found";

/**
 * What the one data-source provider does with any declared data source (src/domain/facts/data-source.ts):
 * check its inputs, read it, read it again on refresh, and tell whether what it read changed.
 */

/** A data source's state: its id, and the inputs plus what the read gave (the output, `readError`, extra outputs). */
export interface DataSourceState {
  id: string;
  outs: Record<string, unknown>;
}

/** The properties a read adds to the state, accepted back as inputs. */
function outputsOf(source: DataSource): string[] {
  return [source.output, ...(source.extraOutputs ?? []), ...(source.unreadable === "reported" ? ["readError"] : [])];
}

/** Checks a data source's inputs (data-source-inputs.ts): required ones non-empty strings, the others strings, nothing unknown. */
export function checkDataSourceInputs(
  source: DataSource,
  news: Record<string, unknown>,
  isUnknown?: (v: unknown) => boolean,
): InputFailure[] {
  const spec = { inputs: source.inputs, optional: [...(source.optional ?? []), ...(source.carried ?? [])], outputs: outputsOf(source) };
  return checkDataSourceInputSpec(spec, news, isUnknown);
}

/** Reads a data source: its inputs (the carried ones kept for the outputs, never sent) and what the read gave. */
export async function readDataSource(clients: FactClients, source: DataSource, inputs: Record<string, unknown>): Promise<DataSourceState> {
  const i = inputsOf(source, inputs);
  const r = await source.read(clients, i);
  return { id: r.id, outs: dataSourceOutputs(source, i, r) };
}

/**
 * A refresh (or an adoption by id, when `props` lacks the inputs): reads again and returns the
 * inputs apart from the data. A source that reports failures keeps a gone resource with its
 * `readError`; for any other, a 404 gives an empty id, so the engine drops the resource.
 */
export async function refreshDataSource(
  clients: FactClients,
  source: DataSource,
  id: string,
  props: Record<string, unknown> | undefined,
): Promise<{ id: string; props?: Record<string, unknown>; inputs?: Record<string, unknown> }> {
  const hasInputs = props && source.inputs.every((k) => typeof props[k] === "string" && props[k]);
  const inputs = hasInputs ? props : source.inputsFromId(id);
  if (!inputs) throw new Error(`"${id}" is not an id of a ${source.token.split(":")[1]} data source`);
  let state: DataSourceState;
  try {
    state = await readDataSource(clients, source, inputs);
  } catch (e) {
    if (source.unreadable !== "reported" && isNotFound(e)) return { id: "" };
    throw e;
  }
  return { id: state.id, props: state.outs, inputs: inputsOf(source, inputs) };
}

/** The inputs a change of which replaces the resource (what it reads); the carried ones only update it. */
export function replacingInputs(source: DataSource): string[] {
  return [...source.inputs, ...(source.optional ?? [])];
}

/** Whether two reads differ in what the API said (the time and request id of a failed read aside). */
export function dataChanged(source: DataSource, olds: Record<string, unknown>, fresh: Record<string, unknown>): boolean {
  const data = (o: Record<string, unknown>) => {
    const { readAt: _at, requestId: _id, ...failure } = (o.readError ?? {}) as Record<string, unknown>;
    const extra = Object.fromEntries((source.extraOutputs ?? []).map((k) => [k, o[k]]));
    return stableJson({ value: o[source.output], failure, extra });
  };
  return data(olds) !== data(fresh);
}

/** The inputs a read takes: every required one (a missing one is an error), the optional and carried ones given. */
function inputsOf(source: DataSource, from: Record<string, unknown>): DataSourceInputs {
  const out: DataSourceInputs = {};
  for (const k of source.inputs) {
    const v = from[k];
    if (typeof v !== "string" || !v) throw new Error(`${k} is required`);
    out[k] = v;
  }
  for (const k of [...(source.optional ?? []), ...(source.carried ?? [])]) {
    if (typeof from[k] === "string" && from[k]) out[k] = from[k] as string;
  }
  return out;
}

function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : x,
  );
}
