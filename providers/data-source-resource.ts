import type * as pulumi from "@pulumi/pulumi";
import type { DataSource } from "../src/domain/facts/data-source";
import { LeanDynamicResource } from "./lean-dynamic-resource";

/** What registering a data source needs of its declaration (src/domain/facts/data-source.ts). */
export type DataSourceShape = Pick<DataSource, "token" | "output" | "extraOutputs" | "unreadable">;

/**
 * A data source in a Pulumi program (type `pulumi-nodejs:dynamic/<token>`), served by the one
 * data-source provider (providers/data-source-provider.ts), loaded from dist/ at call time. Its
 * outputs are its inputs, the API's answer under the source's `output` (and its extra outputs),
 * and `readError` for a source that reports what cannot be read.
 */
export class DataSourceResource extends LeanDynamicResource {
  constructor(source: DataSourceShape, name: string, inputs: Record<string, pulumi.Input<string>>, opts?: pulumi.CustomResourceOptions) {
    const [module, type] = source.token.split(":");
    const outputs = [source.output, ...(source.extraOutputs ?? []), ...(source.unreadable === "reported" ? ["readError"] : [])];
    super(source.token, module, type, name, { ...inputs, ...Object.fromEntries(outputs.map((k) => [k, undefined])) }, opts);
  }

  /** Adopts an existing object by its id: the provider reads the inputs back from it. */
  static get(source: DataSourceShape, name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): DataSourceResource {
    return new DataSourceResource(source, name, {}, { ...opts, id });
  }

  /** One of its outputs by name (the source's `output`: what the API returned). */
  outputNamed(name: string): pulumi.Output<unknown> {
    return (this as unknown as Record<string, pulumi.Output<unknown>>)[name];
  }
}
