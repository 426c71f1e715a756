import { allDataSources } from "../../src/domain/facts/data-source-registry";
import type { FactClients } from "../../src/domain/facts/fact-clients";
import type { StackConfig } from "../../src/domain/stack/stack-config";
import { readDataSource } from "../../src/interfaces/pulumi/data-source-resource";
import type { AnalyzerResourceInput } from "./analyzer";

/**
 * The data sources the Pulumi program registers for a stack (stacks/program.ts: those its config
 * names, then those that follow another's outputs), each with the outputs its provider's create
 * returns, read through `clients`: what the policy pack sees of them after an up. `only` keeps the
 * sources of those tokens (and reads the ones they follow).
 */
export async function dataSourceResources(
  stack: StackConfig,
  clients: FactClients,
  only?: readonly string[],
): Promise<AnalyzerResourceInput[]> {
  const wanted = allDataSources().filter((s) => !only || only.includes(s.token));
  const followed = (s: (typeof wanted)[number]) => (s.follows ? [s.follows.source, ...(s.follows.also ?? [])] : []);
  const needed = new Set([...wanted.map((s) => s.token), ...wanted.flatMap((s) => followed(s).map((f) => f.token))]);
  const out: (AnalyzerResourceInput & { token: string })[] = [];
  for (const source of allDataSources().filter((s) => needed.has(s.token))) {
    for (const i of source.instances?.(stack) ?? [])
      out.push({ token: source.token, type: source.type, name: i.name, props: (await readDataSource(clients, source, i.inputs)).outs });
  }
  for (const source of wanted) {
    const follows = source.follows;
    if (!follows) continue;
    const read = followed(source).flatMap((f) => out.filter((r) => r.token === f.token).map((r) => r.props[f.output]));
    for (const i of follows.instances(read, stack))
      out.push({ token: source.token, type: source.type, name: i.name, props: (await readDataSource(clients, source, i.inputs)).outs });
  }
  return out.filter((r) => wanted.some((s) => s.token === r.token)).map(({ token: _t, ...r }) => r);
}
