import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/interfaces/cli/main";
import type { CommandIO } from "../../../src/interfaces/cli/command-io";

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI in-process with captured output, against an emulator's endpoints (and any `env` beside them). */
export async function runCli(
  argv: string[],
  emulatorUrl: string,
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    isTTY: false,
    cwd,
    exitCode: 0,
    env: { PATH: process.env.PATH, STACKWARDEN_ARM_ENDPOINT: emulatorUrl, STACKWARDEN_IMDS_ENDPOINT: `${emulatorUrl}/metadata`, ...env },
  };
  const code = await main(argv, io);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** A temporary directory holding stack files. */
export function stackDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-cli-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
