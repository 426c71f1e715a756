import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FormData } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpTransport, silentLogger } from "../../../src/http";
import { appendDiskFile, DiskFile } from "../../../src/services/binary-analysis/disk-file";
import { tempDir } from "../../helpers/binary-samples";
import { json, startScriptedServer, type ScriptedServer } from "../../http/scripted-server";

let server: ScriptedServer;
let dir: string;
beforeAll(async () => {
  server = await startScriptedServer();
  dir = tempDir("stackwarden-disk-file-");
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("DiskFile: a file on disk as a FormData part", () => {
  it("announces the file's size and name and streams its bytes, again from the start on each stream()", async () => {
    const path = join(dir, "tool.bin");
    const bytes = Buffer.concat([Buffer.alloc(3 << 20, 0x41), Buffer.from("tail")]);
    writeFileSync(path, bytes);
    const file = await DiskFile.open(path);
    expect(file.size).toBe(bytes.length);
    expect(file.name).toBe("tool.bin");
    expect(file).toBeInstanceOf(File);
    for (let i = 0; i < 2; i++) {
      const chunks: Buffer[] = [];
      for await (const c of file.stream()) chunks.push(Buffer.from(c));
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
      // 1 MiB reads: a 3 MiB file in 4 chunks, not the 49 of 64 KiB reads.
      expect(chunks.length).toBe(4);
    }
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
    expect(() => file.slice()).toThrow("cannot be sliced");
  });

  it("is sent whole as the multipart part, with its filename, and sent again whole when a 429 is retried", async () => {
    const path = join(dir, "script.sh");
    writeFileSync(path, "echo marker\n".repeat(500));
    server.script((_req, res, n) =>
      n === 0
        ? json(res, 429, { error: { code: "TooManyRequests", message: "slow down" } }, { "retry-after-ms": "5" })
        : json(res, 200, { ok: true }),
    );
    const http = new HttpTransport({ baseUrl: server.url, logger: silentLogger, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    const form = new FormData();
    appendDiskFile(form, "file", await DiskFile.open(path));
    await http.json({ operation: "Upload", method: "POST", path: "/upload", form });
    expect(server.seen).toHaveLength(2);
    for (const seen of server.seen) {
      expect(Number(seen.headers["content-length"])).toBe(Buffer.byteLength(seen.body));
      expect(seen.body).toContain(
        `Content-Disposition: form-data; name="file"; filename="script.sh"\r\nContent-Type: application/octet-stream\r\n\r\n${"echo marker\n".repeat(500)}\r\n`,
      );
    }
  });

  it("refuses what is not a file, naming it", async () => {
    await expect(DiskFile.open(dir)).rejects.toThrow(`${dir} is not a file`);
    await expect(DiskFile.open(join(dir, "missing.bin"))).rejects.toThrow("ENOENT");
  });
});
