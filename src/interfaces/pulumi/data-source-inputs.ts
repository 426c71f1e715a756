/** What a data source takes: required string inputs, optional ones, and the properties its state adds. */
export interface DataSourceInputSpec {
  inputs: readonly string[];
  optional?: readonly string[];
  /** Properties a read adds to the state (the output and any others), accepted back as inputs. */
  outputs: readonly string[];
}

/** A problem with one input, as the provider's `check` reports it. */
export interface InputFailure {
  property: string;
  reason: string;
}

/**
 * Checks a data source's inputs: every required one a non-empty string, optional ones strings,
 * nothing unknown (Pulumi's own `__` properties and the state's outputs aside). Values not yet
 * known during a preview are not judged.
 */
export function checkDataSourceInputSpec(
  spec: DataSourceInputSpec,
  news: Record<string, unknown>,
  isUnknown: (v: unknown) => boolean = () => false,
): InputFailure[] {
  const failures: InputFailure[] = [];
  const optional = spec.optional ?? [];
  for (const k of spec.inputs) {
    const v = news[k];
    if (!isUnknown(v) && (typeof v !== "string" || v.length === 0))
      failures.push({ property: k, reason: `${k} is required and must be a non-empty string` });
  }
  for (const k of optional) {
    const v = news[k];
    if (v !== undefined && !isUnknown(v) && typeof v !== "string") failures.push({ property: k, reason: `${k} must be a string` });
  }
  for (const k of Object.keys(news)) {
    if (k.startsWith("__") || spec.inputs.includes(k) || optional.includes(k) || spec.outputs.includes(k)) continue;
    failures.push({ property: k, reason: "unknown input" });
  }
  return failures;
}
