import { openAsBlob, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FormData } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpTransport, silentLogger } from "../../../src/platform/http";
import { appendDiskFile, DiskFile } from "../../../src/services/binary-analysis/disk-file";
import { tempDir } from "../../helpers/binary-samples";
import { json, startScriptedServer, type ScriptedServer } from "./scripted-server";

let server: ScriptedServer;
let dir: string;
beforeAll(async () => {
  server = await startScriptedServer();
  dir = tempDir("stackwarden-form-");
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a multipart FormData body (RequestSpec.form)", () => {
  // The part as the binary analysis client sends it (a DiskFile) and as a Blob from fs.openAsBlob.
  const parts: [string, (file: string, form: FormData) => Promise<void>][] = [
    ["a Blob from fs.openAsBlob", async (file, form) => form.append("file", await openAsBlob(file), "part.bin")],
    ["a DiskFile", async (file, form) => appendDiskFile(form, "file", await DiskFile.open(file))],
  ];
  it.each(parts)(
    "with %s: sent with undici's boundary and content length, and sent again whole when a 429 is retried",
    async (_kind, append) => {
      const file = join(dir, "part.bin");
      writeFileSync(file, "file-bytes-".repeat(1000));
      server.script((_req, res, n) =>
        n === 0
          ? json(res, 429, { error: { code: "TooManyRequests", message: "slow down" } }, { "retry-after-ms": "5" })
          : json(res, 200, { ok: true }),
      );
      const http = new HttpTransport({ baseUrl: server.url, logger: silentLogger, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
      const form = new FormData();
      await append(file, form);
      form.append("rules", "cnVsZQ==");
      const body = await http.json<{ ok: boolean }>({ operation: "Upload", method: "POST", path: "/upload", form });
      expect(body).toEqual({ ok: true });
      expect(server.seen).toHaveLength(2);
      for (const seen of server.seen) {
        const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(String(seen.headers["content-type"]))?.[1];
        expect(boundary).toBeTruthy();
        expect(Number(seen.headers["content-length"])).toBe(Buffer.byteLength(seen.body));
        expect(seen.body).toContain(
          `Content-Disposition: form-data; name="file"; filename="part.bin"\r\nContent-Type: application/octet-stream\r\n\r\n${"file-bytes-".repeat(1000)}\r\n`,
        );
        expect(seen.body).toContain('Content-Disposition: form-data; name="rules"\r\n\r\ncnVsZQ==\r\n');
      }
      expect(server.seen[1].body.length).toBe(server.seen[0].body.length);
    },
  );
});
