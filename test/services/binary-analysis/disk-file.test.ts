import { rmSync, writeFileSync } from "node:fs";
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

  it("refuses what is not a file, naming it", async () => {
    await expect(DiskFile.open(dir)).rejects.toThrow(`${dir} is not a file`);
    await expect(DiskFile.open(join(dir, "missing.bin"))).rejects.toThrow("ENOENT");
  });
});
