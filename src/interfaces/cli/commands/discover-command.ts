import { statSync } from "node:fs";
import type { Command } from "commander";
import { databaseLabel } from "../../../platform/arm/resource-id";
import { readStackFile } from "../../../platform/files/stack-files";
import { writeFileAtomic } from "../../../platform/state/files/atomic-write";
import { unreadDocument } from "../../../domain/stack/unread-entry";
import { adoptedStackText, runDiscover } from "../../../usecases/discover";
import type { CommandIO } from "../command-io";
import { unreadErrorLine } from "../failure-lines";
import { choiceOption, intOption } from "../option-parsers";
import { StackwardenError } from "../../../platform/errors/stackwarden-error";
import { loadStackFromFlags, stackPathFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { serviceClients } from "../service-clients";

const DISCOVER_DESCRIPTION =
  "list the databases of the stack's stackwarden:scope that its file does not list; with --write, add them to stackwarden:databases, keeping the file's comments and order (exit 0, 1 error: also a list of the scope that could not be read)";

export function registerDiscover(program: Command, io: CommandIO): void {
  withStackOptions(program.command("discover"))
    .description(DISCOVER_DESCRIPTION)
    .option("--write", "add the unlisted databases to the stack file as stackwarden:databases entries (a diff a reviewer reads)")
    .option("--output <format>", "table or json", choiceOption(["table", "json"] as const), "table")
    .option("--concurrency <n>", "servers read at once per subscription", intOption(1, 256), 16)
    .action(async (flags: StackFlags & { write?: boolean; output: "table" | "json"; concurrency: number }) => {
      const { stack, name } = loadStackFromFlags(flags, io);
      // What the file held when the stack was loaded: --write adopts into this text and no other, so an
      // edit (or another discover --write) made while discovery ran is never overwritten.
      const path = stackPathFromFlags(flags, io);
      const loaded = flags.write ? readStackFile(path, io.cwd).text : undefined;
      const clients = await serviceClients(io);
      let found;
      try {
        found = await runDiscover({ stack, clients, concurrency: flags.concurrency });
      } finally {
        await clients.close();
      }
      for (const u of found.unread) io.err(unreadErrorLine("stackwarden discover", u));
      if (found.unread.length) io.exitCode = 1;
      const c = found.coverage;
      let written = false;
      if (flags.write && found.unlisted.length > 0) {
        const { file, text } = readStackFile(path, io.cwd);
        if (text !== loaded)
          throw new StackwardenError(
            "SW_FILE_CHANGED",
            `${file} changed while discover ran: nothing was written; run discover --write again`,
          );
        writeFileAtomic(path, adoptedStackText(file, text, stack, found.unlisted), statSync(path).mode & 0o777);
        written = true;
      }
      const subscriptionOf = (d: (typeof found.unlisted)[number]) => d.subscriptionId ?? stack.subscriptionId;
      if (flags.output === "json") {
        const doc = {
          stack: name,
          file: stack.file,
          inScope: c.listed + c.discovered,
          listed: c.listed,
          unlisted: found.unlisted.map((d) => ({
            subscriptionId: subscriptionOf(d),
            resourceGroup: d.resourceGroup,
            server: d.server,
            database: d.database,
            transparentDataEncryption: d.transparentDataEncryption,
          })),
          listedOutsideScope: c.listedOutside,
          written,
          errors: found.unread.map(unreadDocument),
        };
        io.out(JSON.stringify(doc, null, 2));
        return;
      }
      io.out(
        `Scope of stack ${name} (${stack.file}): ${c.subscriptions} subscription(s), ${c.servers} server(s), ${c.listed + c.discovered} database(s) in scope: ${c.listed} listed, ${found.unlisted.length} not listed`,
      );
      for (const d of found.unlisted) io.out(`  + ${databaseLabel(d)}  (subscription ${subscriptionOf(d)})`);
      for (const l of c.listedOutside) io.out(`  listed but outside the scope: ${l}`);
      if (written)
        io.out(`Added ${found.unlisted.length} database(s) to stackwarden:databases in ${stack.file}: review the diff and commit it.`);
      else if (found.unlisted.length > 0) io.out("Add them to the stack file with --write.");
    });
}
