import type { Command } from "commander";
import { KIND_LABELS } from "../../../domain/compliance/placement-labels";
import { unreadDocument } from "../../../domain/stack/unread-entry";
import { runWhere } from "../../../usecases/where";
import type { CommandIO } from "../command-io";
import { unreadErrorLine } from "../failure-lines";
import { choiceOption, intOption } from "../option-parsers";
import { renderTextTable } from "../render/text-table";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { serviceClients } from "../service-clients";

export function registerWhere(program: Command, io: CommandIO): void {
  withStackOptions(program.command("where"))
    .description(
      "place every located resource of the stack (SQL databases, Batch AI workspaces, clusters, file servers) and every site of stackwarden:residency in a country: region, coordinates, country (exit 0, 1 error: also a database that could not be read, the others still placed)",
    )
    .option("--output <format>", "table or json", choiceOption(["table", "json"] as const), "table")
    .option("--concurrency <n>", "reads in flight", intOption(1, 64), 8)
    .action(async (flags: StackFlags & { output: "table" | "json"; concurrency: number }) => {
      const { stack, name } = loadStackFromFlags(flags, io);
      const { placements, unread } = await runWhere({ stack, clients: await serviceClients(io), concurrency: flags.concurrency });
      // A database the cloud does not have: at its stack-file line, as every command says it; the others are placed (exit 1).
      for (const u of unread) io.err(unreadErrorLine("stackwarden where", u));
      if (unread.length) io.exitCode = 1;
      const allowed = stack.residency?.allowedCountries;
      if (flags.output === "json") {
        const doc = {
          stack: name,
          file: stack.file,
          allowedCountries: allowed,
          placements,
          errors: unread.map(unreadDocument),
        };
        io.out(JSON.stringify(doc, null, 2));
        return;
      }
      io.out(`Where the resources and sites of stack ${name} are (${stack.file})`);
      if (placements.length === 0) {
        io.out("  nothing to place: the stack names no databases, Batch AI workspaces or sites");
        return;
      }
      const header = ["KIND", "RESOURCE", "REGION", "LAT", "LNG", "COUNTRY", ...(allowed ? ["ALLOWED"] : []), "NOTE"];
      const rows = placements.map((p) => [
        KIND_LABELS[p.kind],
        p.label,
        p.region ?? p.location ?? (p.kind === "site" ? "-" : "?"),
        p.coordinates ? p.coordinates.lat.toFixed(4) : "",
        p.coordinates ? p.coordinates.lng.toFixed(4) : "",
        p.country ?? "n/a",
        ...(allowed ? [{ pass: "yes", violation: "NO", "not-applicable": "n/a", unknown: "?" }[p.verdict!]] : []),
        p.status === "placed" ? (p.kind === "site" ? `${p.address} (${p.reason})` : (p.place ?? "")) : `not applicable: ${p.reason}`,
      ]);
      io.out(renderTextTable(header, rows));
      if (allowed) io.out(`\nAllowed countries (stackwarden:residency): ${allowed.join(", ")}`);
    });
}
