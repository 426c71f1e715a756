import { hostname } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { verifyTrailText } from "../../../src/domain/audit/audit-chain";
import type { AuditRecord } from "../../../src/domain/audit/audit-entry";
import { AuditTrail } from "../../../src/domain/audit/audit-trail";
import type { StateStores } from "../../../src/domain/state/state-ports";
import type { LockHolder } from "../../../src/platform/state/lock-holder";

/**
 * The contract every state adapter keeps (local files, memory, Azure Blob Storage): one suite, run
 * unchanged over each, so an adapter is proven by the same tests as the others. `open` gives a
 * fresh, empty state each time it is called; `fresh` names what the adapter is.
 */
export function stateContract(name: string, open: () => Promise<StateStores> | StateStores): void {
  const holder = (command: string): LockHolder => ({
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    command,
    stack: "dev",
  });
  const record = (i: number): AuditRecord => ({
    at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    stack: "dev",
    command: "apply",
    who: { claims: "decoded", host: "h" },
    what: [{ resource: `/subscriptions/s/databases/db${i}`, before: "Disabled", after: "Enabled", outcome: "converged" }],
    commit: null,
    exitCode: 0,
  });

  describe(`the state contract: ${name}`, () => {
    describe("locks", () => {
      it("a free lock is taken and names its holder; a second request fails at once naming it; release frees it", async () => {
        const { locks } = await open();
        const first = await locks.acquire({ name: "dev", holder: holder("apply"), timeoutMs: 0 });
        expect(first.held).toBe(true);
        if (!first.held) return;
        expect(first.lease.waitedMs).toBe(0);
        expect(await locks.holder("dev")).toMatchObject({ pid: process.pid, command: "apply", stack: "dev" });
        const second = await locks.acquire({ name: "dev", holder: holder("watch"), timeoutMs: 0 });
        expect(second).toMatchObject({ held: false, holder: { command: "apply" }, waitedMs: 0 });
        // Another lock is not affected.
        const other = await locks.acquire({ name: "prod", holder: holder("apply"), timeoutMs: 0 });
        expect(other.held).toBe(true);
        if (other.held) await other.lease.release();
        await first.lease.check();
        await first.lease.release();
        expect(await locks.holder("dev")).toBeUndefined();
        await first.lease.release(); // twice is harmless
      });

      it("a waiter gets the lock once it is released, and is told once that it waits", async () => {
        const { locks } = await open();
        const first = await locks.acquire({ name: "dev", holder: holder("apply"), timeoutMs: 0 });
        if (!first.held) throw new Error("not taken");
        const seen: (LockHolder | undefined)[] = [];
        const waiting = locks.acquire({ name: "dev", holder: holder("watch"), timeoutMs: 30_000, pollMs: 20, onWait: (h) => seen.push(h) });
        await delay(150);
        await first.lease.release();
        const second = await waiting;
        expect(second.held).toBe(true);
        expect(seen).toHaveLength(1);
        expect(seen[0]).toMatchObject({ command: "apply" });
        if (second.held) {
          expect(second.lease.waitedMs).toBeGreaterThan(0);
          await second.lease.release();
        }
      });

      it("a waiter whose time runs out is refused, naming the holder and how long it waited", async () => {
        const { locks } = await open();
        const first = await locks.acquire({ name: "dev", holder: holder("apply"), timeoutMs: 0 });
        if (!first.held) throw new Error("not taken");
        const late = await locks.acquire({ name: "dev", holder: holder("watch"), timeoutMs: 100, pollMs: 20 });
        expect(late).toMatchObject({ held: false, holder: { command: "apply" } });
        if (!late.held) expect(late.waitedMs).toBeGreaterThanOrEqual(100);
        await first.lease.release();
      });

      it("a broken lock names whom it was taken from, and its holder's fence then refuses to write", async () => {
        const { locks } = await open();
        const first = await locks.acquire({ name: "dev", holder: holder("apply"), timeoutMs: 0 });
        if (!first.held) throw new Error("not taken");
        expect(await locks.break("dev")).toMatchObject({ command: "apply" });
        expect(await locks.holder("dev")).toBeUndefined();
        await expect(first.lease.check()).rejects.toThrow(/lock of stack dev/);
        const next = await locks.acquire({ name: "dev", holder: holder("watch"), timeoutMs: 0 });
        expect(next.held).toBe(true);
        if (next.held) await next.lease.release();
        expect(await locks.break("dev")).toBeUndefined();
      });
    });

    describe("audit logs", () => {
      it("a missing log reads as nothing; appends go after the line they chained to, or conflict", async () => {
        const { audit } = await open();
        expect(await audit.read("dev")).toBeUndefined();
        expect(await audit.end("dev")).toBeUndefined();
        expect(await audit.recent("dev", 5)).toEqual([]);
        expect(await audit.append("dev", 1, '{"seq":1}', undefined)).toBe("appended");
        expect(await audit.append("dev", 1, '{"seq":1,"again":true}', undefined)).toBe("conflict");
        expect(await audit.append("dev", 2, '{"seq":2}', '{"seq":0}')).toBe("conflict");
        expect(await audit.append("dev", 2, '{"seq":2}', '{"seq":1}')).toBe("appended");
        expect(await audit.read("dev")).toBe('{"seq":1}\n{"seq":2}\n');
        expect(await audit.end("dev")).toEqual({ line: '{"seq":2}' });
        expect(await audit.recent("dev", 1)).toEqual(['{"seq":2}']);
        expect(await audit.recent("dev", 5)).toEqual(['{"seq":1}', '{"seq":2}']);
        expect(await audit.read("prod")).toBeUndefined();
        expect(audit.where("dev")).toContain("dev");
      });

      it("two writers appending at once never fork the chain and lose no entry: the loser chains after the winner", async () => {
        const { audit } = await open();
        const a = new AuditTrail(audit, "dev");
        const b = new AuditTrail(audit, "dev");
        const written = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => (i % 2 ? a : b).append(record(i))));
        expect(written.map((e) => e.seq).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6]);
        const verdict = verifyTrailText((await a.text())!);
        expect(verdict).toMatchObject({ intact: true, entries: 6, problems: [] });
        const commands = (await a.text())!
          .trim()
          .split("\n")
          .map((l) => (JSON.parse(l) as { what: { resource: string }[] }).what[0].resource)
          .sort();
        expect(commands).toEqual([1, 2, 3, 4, 5, 6].map((i) => `/subscriptions/s/databases/db${i}`));
      });

      it("keeps one pending record per log beside it: written, replaced, read back and removed, apart from the log", async () => {
        const { audit } = await open();
        expect(await audit.readPending("dev")).toBeUndefined();
        await audit.writePending("dev", '{"applyId":"a"}');
        await audit.writePending("dev", '{"applyId":"b"}');
        expect(await audit.readPending("dev")).toBe('{"applyId":"b"}');
        expect(await audit.readPending("prod")).toBeUndefined();
        expect(await audit.read("dev")).toBeUndefined();
        await audit.writePending("dev", undefined);
        expect(await audit.readPending("dev")).toBeUndefined();
        await audit.writePending("dev", undefined);
      });
    });

    describe("documents", () => {
      it("are read, written, written conditionally, listed, appended to, touched and deleted", async () => {
        const { status: docs } = await open();
        expect(await docs.get("stacks/dev.json")).toBeUndefined();
        expect(await docs.list("stacks/")).toEqual([]);
        const made = await docs.put("board.json", "one\n", { ifNoneMatch: "*" });
        expect(made).toEqual(expect.any(String));
        expect(await docs.put("board.json", "two\n", { ifNoneMatch: "*" })).toBeUndefined();
        expect(await docs.get("board.json")).toEqual({ text: "one\n", etag: made });
        const second = await docs.put("board.json", "two\n", { ifMatch: made });
        expect(second).toEqual(expect.any(String));
        expect(second).not.toBe(made);
        expect(await docs.put("board.json", "three\n", { ifMatch: made! })).toBeUndefined();
        expect((await docs.get("board.json"))?.text).toBe("two\n");

        await docs.put("stacks/b.json", "bb");
        await docs.put("stacks/a.json", "a");
        await docs.put("stacks-other.json", "x");
        expect((await docs.list("stacks/")).map((d) => [d.name, d.size])).toEqual([
          ["stacks/a.json", 1],
          ["stacks/b.json", 2],
        ]);
        // A listing is a directory's: what is in a folder below the prefix is not in it.
        expect((await docs.list("")).map((d) => d.name)).toEqual(["board.json", "stacks-other.json"]);
        await docs.appendLine("dead-letter.jsonl", '{"n":1}');
        await docs.appendLine("dead-letter.jsonl", '{"n":2}');
        expect((await docs.get("dead-letter.jsonl"))?.text).toBe('{"n":1}\n{"n":2}\n');

        const before = (await docs.list("stacks/")).find((d) => d.name === "stacks/a.json")!.modifiedMs;
        await delay(1100); // Blob Storage keeps modification times to the second
        await docs.touch("stacks/a.json");
        const after = (await docs.list("stacks/")).find((d) => d.name === "stacks/a.json")!.modifiedMs;
        expect(after).toBeGreaterThan(before);

        await docs.delete("stacks/a.json");
        await docs.delete("stacks/never.json");
        expect((await docs.list("stacks/")).map((d) => d.name)).toEqual(["stacks/b.json"]);
        expect(docs.where("stacks/b.json")).toContain("b.json");
      });
    });
  });
}
