import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displayPath, expandBraces, segmentRegExp } from "../../../src/platform/files/path-glob";
import { expandGlobs } from "../../../src/platform/files/glob-expansion";
import { tempDir } from "../../helpers/binary-samples";

let base: string;
const touch = (rel: string) => {
  const p = join(base, rel);
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, rel);
};

beforeAll(() => {
  base = tempDir("stackwarden-glob-");
  for (const f of [
    "jobs/train.py",
    "jobs/vision/resnet.py",
    "jobs/vision/deep/eval.py",
    "jobs/vision/notes.md",
    "jobs/.venv/lib/site.py",
    "jobs/.hidden.py",
    "tools/bin/agent",
    "tools/bin/helper.sh",
    "tools/bin/sub/nested",
    "tools/lib/libx.so",
  ])
    touch(f);
  // A loop that a naive walker would follow forever.
  symlinkSync(join(base, "jobs"), join(base, "jobs", "vision", "loop"));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const rel = (files: string[]) => files.map((f) => displayPath(base, f));

describe("globs", () => {
  it("expands braces, nested too", () => {
    expect(expandBraces("a/{b,c}/*.{py,sh}")).toEqual(["a/b/*.py", "a/b/*.sh", "a/c/*.py", "a/c/*.sh"]);
    expect(expandBraces("x{1,{2,3}}")).toEqual(["x1", "x2", "x3"]);
    expect(expandBraces("no-braces/{single}")).toEqual(["no-braces/{single}"]);
  });

  it("matches within a segment, and leaves dot files to patterns that name the dot", () => {
    expect(segmentRegExp("*.py").test("train.py")).toBe(true);
    expect(segmentRegExp("*.py").test(".hidden.py")).toBe(false);
    expect(segmentRegExp(".*.py").test(".hidden.py")).toBe(true);
    expect(segmentRegExp("file?.[ch]").test("file1.c")).toBe(true);
    expect(segmentRegExp("[!a]*").test("abc")).toBe(false);
  });

  it("finds files at any depth with **, skipping dot directories and symlinked directories", () => {
    const { files, unmatched } = expandGlobs(base, ["jobs/**/*.py"]);
    expect(rel(files)).toEqual(["jobs/train.py", "jobs/vision/deep/eval.py", "jobs/vision/resnet.py"]);
    expect(unmatched).toEqual([]);
  });

  it("lists each file once across patterns, sorted, and reports patterns that match nothing", () => {
    const { files, unmatched } = expandGlobs(base, [
      "tools/bin/*",
      "tools/{bin,lib}/*",
      "tools/bin/agent",
      "missing/*.exe",
      "tools/bin/absent",
    ]);
    expect(rel(files)).toEqual(["tools/bin/agent", "tools/bin/helper.sh", "tools/lib/libx.so"]);
    expect(unmatched).toEqual(["missing/*.exe", "tools/bin/absent"]);
    expect(rel(expandGlobs(base, ["tools/**"]).files)).toEqual([
      "tools/bin/agent",
      "tools/bin/helper.sh",
      "tools/bin/sub/nested",
      "tools/lib/libx.so",
    ]);
    expect(rel(expandGlobs(base, [join(base, "jobs", "*.py")]).files)).toEqual(["jobs/train.py"]);
  });
});
