import { commandTables } from "./command-tables";
import { conditionReasonTable, environmentTables, errorCodeTable, metricTable, ruleTable } from "./registry-tables";

/** The command that regenerates docs/reference.md's tables: the unit test's failure message names it. */
export const REGENERATE_COMMAND = "npm run docs:reference";

/** The generated sections, by the name their markers carry, each rendered from the code's own declarations. */
export const GENERATED_SECTIONS: Readonly<Record<string, () => string | Promise<string>>> = {
  commands: commandTables,
  environment: environmentTables,
  "error-codes": errorCodeTable,
  "condition-reasons": conditionReasonTable,
  rules: ruleTable,
  metrics: metricTable,
};

const begin = (name: string) => `<!-- generated: ${name} (${REGENERATE_COMMAND}; do not edit by hand) -->`;
const end = (name: string) => `<!-- end generated: ${name} -->`;

/**
 * The document with every generated section filled in anew; the prose around the markers is kept as
 * written. A section whose markers are missing is an error naming them, so no table silently goes.
 */
export async function fillGeneratedSections(text: string): Promise<string> {
  let out = text;
  for (const [name, render] of Object.entries(GENERATED_SECTIONS)) {
    const from = out.indexOf(begin(name));
    const to = out.indexOf(end(name));
    if (from < 0 || to < from) throw new Error(`docs/reference.md: no "${begin(name)}" … "${end(name)}" markers`);
    out = `${out.slice(0, from)}${begin(name)}\n\n${(await render()).trimEnd()}\n\n${out.slice(to)}`;
  }
  return out;
}
