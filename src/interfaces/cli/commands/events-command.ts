import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { NOTIFY_SECRET_ENV, parseNotifySecret } from "../../watch/events/notify-secret";
import { parseHeaderText, verifyWebhook } from "../../watch/events/webhook-verification";
import { UsageError } from "../cli-error";
import type { CommandIO } from "../command-io";

/** Exit code of `events verify` when the signature does not hold. */
export const EXIT_INVALID = 5;

interface VerifyFlags {
  payload: string;
  headers: string;
  secretEnv: string;
  ignoreTimestamp?: boolean;
}

export function registerEvents(program: Command, io: CommandIO): void {
  const events = program.command("events").description("the CloudEvents that watch --notify sends to webhooks");
  events
    .command("verify")
    .description(
      "check a delivery's Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature; HMAC-SHA256 with STACKWARDEN_NOTIFY_SECRET) (exit 0 valid, 5 invalid, 1 error)",
    )
    .option("--payload <file>", "the request body exactly as received; - for stdin", "-")
    .option("--headers <file>", "the request headers: a JSON object, or `Name: value` lines as curl -D writes them; - for stdin")
    .option("--secret-env <name>", "the variable holding the whsec_ secret", NOTIFY_SECRET_ENV)
    .option("--ignore-timestamp", "check the signature only, not that the timestamp is within 5 minutes (a payload saved earlier)")
    .action(async (flags: VerifyFlags) => {
      if (!flags.headers) throw new UsageError("give the delivery's headers with --headers FILE (or - for stdin)");
      if (flags.headers === "-" && flags.payload === "-")
        throw new UsageError("only one of --payload and --headers can be read from stdin: give the other as a file");
      let secret: string;
      try {
        secret = parseNotifySecret(io.env[flags.secretEnv], flags.secretEnv);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      const payload = await readInput(flags.payload, "--payload");
      let headers: Record<string, string>;
      try {
        headers = parseHeaderText(await readInput(flags.headers, "--headers"));
      } catch (e) {
        throw new UsageError(`--headers ${flags.headers}: ${(e as Error).message}`);
      }
      const v = verifyWebhook(secret, payload, headers, { ignoreTimestamp: flags.ignoreTimestamp });
      if (!v.valid) {
        io.out(`invalid: ${v.reason}`);
        io.exitCode = EXIT_INVALID;
        return;
      }
      const what = v.event ? `${v.event.type}${v.event.subject ? ` for ${v.event.subject}` : ""}` : (v.note ?? "");
      io.out(`valid: webhook-id ${v.id}, signed ${v.timestamp.toISOString()}: ${what}`);
      io.exitCode = 0;
    });
}

/** A file's text, or stdin's for `-`. */
async function readInput(path: string, flag: string): Promise<string> {
  if (path === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`${flag} ${path}: ${code === "ENOENT" ? "no such file" : (e as Error).message}`);
  }
}
