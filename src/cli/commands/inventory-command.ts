import type { Command } from "commander";
import { stringify } from "yaml";
import { collectBatchInventory } from "../../inventory/batch-inventory";
import { collectSqlInventory } from "../../inventory/sql-inventory";
import { azureClientsFromEnv } from "../../runtime/azure-clients";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";

export function registerInventory(program: Command, io: CommandIO): void {
  withStackOptions(program.command("inventory"))
    .description(
      "read every data source the stack names: Batch AI (operations, usages, workspaces, clusters, experiments, file servers, jobs) and SQL (advisors, pool activity, TDE, scans)",
    )
    .option("--output <format>", "json, yaml or table", choiceOption(["json", "yaml", "table"] as const), "table")
    .option("--concurrency <n>", "reads in flight", intOption(1, 256), 8)
    .action(async (flags: StackFlags & { output: "json" | "yaml" | "table"; concurrency: number }) => {
      const { stack, name } = loadStackFromFlags(flags, io);
      const { sql, batch } = azureClientsFromEnv(io.env);
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
      const [b, s] = await Promise.all([
        collectBatchInventory(
          batch,
          { subscriptionId: stack.subscriptionId, resourceGroups: stack.batch.resourceGroups, locations: stack.batch.locations },
          { concurrency: flags.concurrency, onProgress: progress },
        ),
        collectSqlInventory(sql, stack, { concurrency: flags.concurrency }),
      ]);
      const { usagesByLocation: _byLocation, ...batchLists } = b;
      const doc = { batch: batchLists, sql: s };
      if (flags.output === "json") io.out(JSON.stringify(doc, null, 2));
      else if (flags.output === "yaml") io.out(stringify(doc, { aliasDuplicateObjects: false }));
      else {
        io.out(`Inventory of stack ${name} (${stack.file})`);
        for (const [section, lists] of Object.entries(doc)) {
          for (const [k, v] of Object.entries(lists)) io.out(`  ${section}.${k.padEnd(36)} ${(v as unknown[]).length}`);
        }
      }
    });
}
