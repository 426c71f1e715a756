import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sha256Hex, verifyTrailText } from "../../../src/domain/audit/audit-chain";
import { GENESIS_HASH, type AuditRecord } from "../../../src/domain/audit/audit-entry";
import { AuditTrail, AuditTrailError } from "../../../src/domain/audit/audit-trail";
import { FileAuditLog } from "../../../src/platform/state/files/file-audit-log";
import { runCli } from "../../interfaces/cli/cli-harness";

const record = (i: number): AuditRecord => ({
  at: `2026-01-0${i}T00:00:00.000Z`,
  stack: "dev",
  command: "apply",
  who: { claims: "decoded", tid: "t", oid: "o", appid: "a", host: "h" },
  what: [{ resource: `/subscriptions/s/db${i}`, before: "Disabled", after: "Enabled", outcome: "converged", scanDurationMs: 10 * i }],
  commit: null,
  exitCode: 0,
});

/** A trail in a new directory, as `apply` keeps it (`<dir>/<stack>.jsonl`). */
function fileTrail(stack: string): AuditTrail {
  return new AuditTrail(new FileAuditLog(mkdtempSync(join(tmpdir(), "stackwarden-audit-"))), stack);
}

async function trailOf(n: number): Promise<{ trail: AuditTrail; lines: string[] }> {
  const trail = fileTrail("dev");
  for (let i = 1; i <= n; i++) await trail.append(record(i));
  return { trail, lines: readFileSync(trail.where, "utf8").trimEnd().split("\n") };
}

const verdict = (lines: string[]) => verifyTrailText(lines.join("\n") + "\n");

describe("the audit trail's hash chain", () => {
  it("each entry carries seq, the sha-256 of the line before it and its own hash", async () => {
    const { lines } = await trailOf(3);
    const entries = lines.map((l) => JSON.parse(l) as { seq: number; prev: string; hash: string });
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(entries[0].prev).toBe(GENESIS_HASH);
    expect(entries[1].prev).toBe(sha256Hex(lines[0]));
    expect(entries[2].prev).toBe(sha256Hex(lines[1]));
    const v = verdict(lines);
    expect(v).toEqual({ intact: true, entries: 3, head: { seq: 3, hash: entries[2].hash }, problems: [] });
  });

  it("an edited line is named (its own hash no longer matches)", async () => {
    const { lines } = await trailOf(3);
    lines[1] = lines[1].replace('"outcome":"converged"', '"outcome":"failed"');
    expect(verdict(lines).problems).toEqual([expect.objectContaining({ line: 2, kind: "edited" })]);
  });

  it("an edited line whose own hash was recomputed is named through the next line's prev", async () => {
    const { lines } = await trailOf(3);
    const e = JSON.parse(lines[1]) as Record<string, unknown>;
    e.exitCode = 1;
    delete e.hash;
    lines[1] = JSON.stringify({ ...e, hash: sha256Hex(JSON.stringify(e)) });
    expect(verdict(lines).problems).toEqual([
      expect.objectContaining({ line: 2, kind: "edited", message: expect.stringContaining("line 3 recorded a different hash") }),
    ]);
  });

  it("the last line edited is caught too", async () => {
    const { lines } = await trailOf(2);
    lines[1] = lines[1].replace('"exitCode":0', '"exitCode":3');
    expect(verdict(lines).problems).toEqual([expect.objectContaining({ line: 2, kind: "edited" })]);
  });

  it("a removed entry is named, at the start, in the middle", async () => {
    const { lines } = await trailOf(4);
    expect(verdict([lines[0], lines[2], lines[3]]).problems).toEqual([
      expect.objectContaining({ line: 2, kind: "removed", message: expect.stringContaining("entry seq 2 was removed before line 2") }),
    ]);
    expect(verdict(lines.slice(1)).problems).toEqual([expect.objectContaining({ line: 1, kind: "removed" })]);
    expect(verdict([lines[0], lines[3]]).problems[0].message).toContain("entries seq 2..3 were removed");
  });

  it("reordered entries are named", async () => {
    const { lines } = await trailOf(3);
    const v = verdict([lines[0], lines[2], lines[1]]);
    expect(v.intact).toBe(false);
    expect(v.problems.map((p) => [p.line, p.kind])).toEqual([
      [2, "reordered"],
      [3, "reordered"],
    ]);
  });

  it("a line that is not an entry, and a partial last line, are named", async () => {
    const { lines } = await trailOf(2);
    expect(verdict([lines[0], "hello", lines[1]]).problems[0]).toEqual(expect.objectContaining({ line: 2, kind: "unparseable" }));
    const cut = `${lines[0]}\n${lines[1].slice(0, 40)}`;
    expect(verifyTrailText(cut).problems).toEqual([expect.objectContaining({ line: 2, kind: "incomplete" })]);
    expect(verifyTrailText("")).toEqual({ intact: true, entries: 0, problems: [] });
  });

  it("appending refuses to start on a damaged end, so nothing is applied that cannot be recorded", async () => {
    const { trail, lines } = await trailOf(2);
    writeFileSync(trail.where, `${lines[0]}\n${lines[1].slice(0, 30)}`);
    await expect(trail.tail()).rejects.toThrow(AuditTrailError);
    await expect(trail.tail()).rejects.toThrow(/ends in a partial line/);
    writeFileSync(trail.where, `${lines[0]}\nnot json\n`);
    await expect(trail.tail()).rejects.toThrow(/is not an audit entry/);
  });

  it("a long trail's last line is found past the first read chunk", async () => {
    const trail = fileTrail("big");
    const big = record(1);
    big.what = Array.from({ length: 2000 }, (_, i) => ({ ...big.what[0], resource: `/subscriptions/s/databases/db-${i}` }));
    await trail.append(big);
    await trail.append(big);
    expect((await trail.tail())?.seq).toBe(2);
    expect(verifyTrailText(readFileSync(trail.where, "utf8")).intact).toBe(true);
  });
});

describe("a checkpoint: audit verify --expect-head", () => {
  const verify = (path: string, ...args: string[]) => runCli(["audit", "verify", "--file", path, ...args], "http://127.0.0.1:9", tmpdir());
  const headOf = (line: string) => (JSON.parse(line) as { hash: string }).hash;

  it("finds the head, an earlier entry, or nothing (pure)", async () => {
    const { lines } = await trailOf(3);
    expect(verdict(lines).checkpoint).toBeUndefined();
    expect(verifyTrailText(lines.join("\n") + "\n", headOf(lines[2]))).toMatchObject({
      intact: true,
      checkpoint: { found: { line: 3, seq: 3 }, appendedSince: 0 },
    });
    expect(verifyTrailText(lines.join("\n") + "\n", headOf(lines[0])).checkpoint).toMatchObject({ appendedSince: 2 });
    const cut = verifyTrailText(lines.slice(0, 2).join("\n") + "\n", headOf(lines[2]));
    expect(cut).toMatchObject({ intact: false, problems: [], checkpoint: { hash: headOf(lines[2]) } });
    expect(cut.checkpoint?.found).toBeUndefined();
    expect(verifyTrailText("", headOf(lines[2]))).toMatchObject({ intact: false, entries: 0, checkpoint: { hash: headOf(lines[2]) } });
  });

  it("the last entry removed: passes without the option, exits 5 with the old head, in one line naming the file", async () => {
    const { trail, lines } = await trailOf(3);
    const before = await verify(trail.where);
    expect(before.code).toBe(0);
    const printed = /head seq 3 sha256 ([0-9a-f]{64})$/.exec(before.out)![1];
    expect(printed).toBe(headOf(lines[2]));
    expect((await verify(trail.where, "--expect-head", printed)).out).toBe(
      `${trail.where}: intact, 3 entries; head seq 3 sha256 ${printed}; the expected head is still the head`,
    );

    writeFileSync(trail.where, lines.slice(0, 2).join("\n") + "\n");
    const cut = await verify(trail.where);
    expect(cut.code, "a chain alone cannot tell").toBe(0);
    const pinned = await verify(trail.where, "--expect-head", printed.toUpperCase());
    expect(pinned.code).toBe(5);
    expect(pinned.out.split("\n")).toHaveLength(1);
    expect(pinned.out).toBe(
      `${trail.where}: TAMPERED: the expected head ${printed} is not in the trail (2 entries; its head is seq 2 sha256 ${headOf(lines[1])}): ` +
        "entries were removed from the end, or the chain was rewritten from some line on",
    );
    const json = JSON.parse((await verify(trail.where, "--expect-head", printed, "--output", "json")).out) as Record<string, unknown>;
    expect(json).toMatchObject({ intact: false, problems: [], checkpoint: { hash: printed } });
  });

  it("entries appended after the checkpoint: passes, saying how many", async () => {
    const { trail, lines } = await trailOf(2);
    await trail.append(record(3));
    await trail.append(record(4));
    const r = await verify(trail.where, "--expect-head", headOf(lines[1]));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(
      /: intact, 4 entries; head seq 4 sha256 [0-9a-f]{64}; 2 entries appended since the expected head \(seq 2, line 2\)$/,
    );
  });

  it("a tampered chain with the checkpoint gone lists both", async () => {
    const { trail, lines } = await trailOf(3);
    writeFileSync(trail.where, [lines[0], lines[1].replace('"exitCode":0', '"exitCode":1')].join("\n") + "\n");
    const r = await verify(trail.where, "--expect-head", headOf(lines[2]));
    expect(r.code).toBe(5);
    expect(r.out.split("\n")).toEqual([
      expect.stringContaining("TAMPERED (1 problem(s))"),
      expect.stringMatching(/^ {2}line 2: edited: /),
      expect.stringMatching(/^ {2}expected head: the expected head [0-9a-f]{64} is not in the trail/),
    ]);
  });
});
