import { readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiskFile } from "../../../src/services/binary-analysis/disk-file";
import { tempDir } from "../../helpers/binary-samples";

// Sending a DiskFile in a FormData (and again on a retry) is tested beside the Blob in test/platform/http/form-body.test.ts.
let dir: string;
beforeAll(() => {
  dir = tempDir("stackwarden-disk-file-");
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** This process's open file descriptors on `path` (Linux's /proc). */
function openHandlesOn(path: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;
}

describe("DiskFile: a file on disk as a FormData part", () => {
  it("announces the file's size and name and streams its bytes, again from the start on each stream()", async () => {
    const path = join(dir, "tool.bin");
    const bytes = Buffer.concat([Buffer.alloc(9 << 20, 0x41), Buffer.from("tail")]);
    writeFileSync(path, bytes);
    let readToEnd = 0;
    const file = await DiskFile.open(path, { onRead: () => (readToEnd += 1) });
    expect(file.size).toBe(bytes.length);
    expect(file.name).toBe("tool.bin");
    expect(file).toBeInstanceOf(File);
    for (let i = 0; i < 2; i++) {
      const chunks: Buffer[] = [];
      for await (const c of file.stream()) chunks.push(Buffer.from(c));
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
      // 4 MiB reads: a 9 MiB file in 3 chunks, not the 145 of 64 KiB reads.
      expect(chunks.length).toBe(3);
      expect(readToEnd).toBe(i + 1);
    }
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
    expect(() => file.slice()).toThrow("cannot be sliced");
  });

  it("closes the file when a stream is cancelled halfway, and says nothing was read to the end", async () => {
    const path = join(dir, "big.bin");
    writeFileSync(path, Buffer.alloc(12 << 20, 0x42));
    let readToEnd = 0;
    const file = await DiskFile.open(path, { onRead: () => (readToEnd += 1) });
    const reader = file.stream().getReader();
    expect((await reader.read()).value?.byteLength).toBe(4 << 20);
    expect(openHandlesOn(path)).toBe(1);
    await reader.cancel();
    expect(readToEnd).toBe(0);
    expect(openHandlesOn(path)).toBe(0);
    const chunks: Uint8Array[] = [];
    for await (const c of file.stream()) chunks.push(c);
    expect(chunks.reduce((n, c) => n + c.byteLength, 0)).toBe(12 << 20);
  });

  it("refuses what is not a file, naming it", async () => {
    await expect(DiskFile.open(dir)).rejects.toThrow(`${dir} is not a file`);
    await expect(DiskFile.open(join(dir, "missing.bin"))).rejects.toThrow("ENOENT");
  });
});
