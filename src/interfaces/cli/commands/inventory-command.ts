import type { Command } from "commander";
import { stringify } from "yaml";
import { runInventory } from "../../../usecases/inventory";
import type { CommandIO } from "../command-io";
import { inventoryErrorLine } from "../failure-lines";
import { choiceOption, intOption } from "../option-parsers";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { serviceClients } from "../service-clients";

export function registerInventory(program: Command, io: CommandIO): void {
  withStackOptions(program.command("inventory"))
    .description(
      "read every data source the stack names: Batch AI (operations, usages, workspaces, clusters, experiments, file servers, jobs), SQL (advisors, pool activity, TDE, scans, TDE protectors, server keys) and Key Vault (the vaults and keys of customer-managed TDE protectors) (exit 0, 1 when a read failed: everything else is still printed)",
    )
    .option("--output <format>", "json, yaml or table", choiceOption(["json", "yaml", "table"] as const), "table")
    .option("--concurrency <n>", "reads in flight", intOption(1, 256), 8)
    .action(async (flags: StackFlags & { output: "json" | "yaml" | "table"; concurrency: number }) => {
      const { stack, name } = loadStackFromFlags(flags, io);
      let last = 0;
      const progress =
        io.isTTY || flags.output !== "table"
          ? (done: number, total: number) => {
              const now = Date.now();
              if (now - last < 1000 && done < total) return;
              last = now;
              io.err(`inventory: ${done}/${total} reads`);
            }
          : undefined;
      const { batch, sql, keyVault, errors, warnings } = await runInventory({
        stack,
        clients: await serviceClients(io),
        concurrency: flags.concurrency,
        onProgress: progress,
      });
      const lists = { batch, sql, keyVault };
      const doc = { ...lists, errors, warnings };
      if (flags.output === "json") io.out(JSON.stringify(doc, null, 2));
      else if (flags.output === "yaml") io.out(stringify(doc, { aliasDuplicateObjects: false }));
      else {
        io.out(`Inventory of stack ${name} (${stack.file})`);
        const rows: [string, number][] = Object.entries(lists).flatMap(([section, kinds]) =>
          Object.entries(kinds).map(([k, v]): [string, number] => [`${section}.${k}`, (v as unknown[]).length]),
        );
        if (errors.length) rows.push(["errors", errors.length]);
        // One column of names, one of counts right-aligned under each other, however long the names.
        const nameWidth = Math.max(...rows.map(([n]) => n.length));
        const countWidth = Math.max(...rows.map(([, c]) => String(c).length));
        for (const [n, c] of rows) io.out(`  ${n.padEnd(nameWidth)}  ${String(c).padStart(countWidth)}`);
      }
      for (const w of warnings) io.err(`inventory: warning: ${w.resource}: ${w.message}`);
      for (const e of errors) io.err(inventoryErrorLine(e));
      if (errors.length) io.exitCode = 1;
    });
}
