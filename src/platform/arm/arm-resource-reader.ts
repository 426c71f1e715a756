import { ArmClient, type ArmClientOptions, type ArmRead } from "./arm-client";
import { pathStyle, type IdStyle } from "./resource-id";

/** One read of a Resource Manager resource by its path. */
export interface ArmResourceRead {
  /** The spec's operationId (`Servers_Get`): what errors, logs and the read's receipt name. */
  operation: string;
  /** The resource's path: its ARM id, written in `style` (`sqlServerId(ref, reader.style)`). */
  path: string;
  /** The api-version sent (the spec's, e.g. `2021-11-01`). */
  apiVersion: string;
  signal?: AbortSignal;
}

/**
 * Reads any Resource Manager resource by path and api-version, through what every ARM client
 * has: the bearer token for ARM's scope, retries, pacing (the same pacer as the typed clients:
 * one per credential and endpoint), Azure's request ids and tolerant reading (a body that is not
 * an object is refused; an object is handed on unchanged, one without a usable `id` with a
 * warning). It checks nothing against a spec: it is for a fact kind that reads what no service
 * client reads yet, while a service's client method (a table of the spec's paths and operations)
 * stays the place of a real kind's read.
 */
export class ArmResourceReader {
  private readonly byVersion = new Map<string, OneVersionReader>();

  constructor(private readonly options: ArmClientOptions) {}

  /** How request paths are written for this endpoint: the configured namespace spelling, segments encoded. */
  get style(): IdStyle {
    return pathStyle(this.options.naming ?? "real");
  }

  /** GETs one resource; resolves with it and the receipt of its read (when, which operation, Resource Manager's request id). */
  read<T extends object = Record<string, unknown>>(req: ArmResourceRead): Promise<ArmRead<T>> {
    let reader = this.byVersion.get(req.apiVersion);
    if (!reader) this.byVersion.set(req.apiVersion, (reader = new OneVersionReader(this.options, req.apiVersion)));
    return reader.read<T>(req.operation, req.path, req.signal);
  }
}

/** An ARM client of one api-version with no spec to check answers against. */
class OneVersionReader extends ArmClient {
  constructor(options: ArmClientOptions, apiVersion: string) {
    super({ ...options, validation: "off" }, { apiVersion, spec: "" });
  }

  read<T>(operation: string, path: string, signal?: AbortSignal): Promise<ArmRead<T>> {
    return this.singleRead<T>({ id: operation, schema: "/definitions/resource" }, path, { signal });
  }
}
