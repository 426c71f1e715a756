import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { acceptsGzip, gzipWithKeptTail, keptPart } from "../../../src/interfaces/watch/server/gzip-parts";

// The status list's gzip answer: a head compressed per request, then a tail compressed once, as one
// gzip member that any decoder (zlib here; browsers and fetch through the same format) reads whole.

const whole = (parts: Buffer[]) => Buffer.concat(parts);

describe("gzipWithKeptTail", () => {
  it("decodes to the head then the tail, for heads and tails of any size and content", () => {
    const json = (n: number) =>
      Buffer.from(JSON.stringify(Array.from({ length: n }, (_, i) => ({ i, name: `stack-${i}`, état: "dérivé ✓" }))));
    let seed = 7;
    const noise = (n: number) => Buffer.from(Array.from({ length: n }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff));
    const cases: [Buffer, Buffer][] = [
      [Buffer.from('{"revision":3,"generatedAt":"2026-11-29T19:30:00.000Z"'), json(2_000)],
      [Buffer.alloc(0), json(10)],
      [json(5), Buffer.alloc(0)],
      [noise(70_000), noise(300_000)], // incompressible: stored blocks on both sides of the seam
      [json(1), json(40_000)], // larger than a deflate window, back-references far into the tail
    ];
    for (const [head, tail] of cases) {
      const out = whole(gzipWithKeptTail(head, keptPart(tail)));
      expect(gunzipSync(out).equals(Buffer.concat([head, tail]))).toBe(true);
    }
  });

  it("compresses the tail once: one kept part serves many heads", () => {
    const tail = keptPart(Buffer.from(`,"stacks":[${'{"name":"a","sync":"drifted"},'.repeat(5_000)}{}]}`));
    for (const t of ["2026-11-29T19:30:00.000Z", "2026-11-29T19:30:01.000Z"]) {
      const head = Buffer.from(`{"generatedAt":"${t}"`);
      expect(gunzipSync(whole(gzipWithKeptTail(head, tail))).toString()).toBe(`${head.toString()}${tail.bytes.toString()}`);
    }
    expect(tail.deflated.length).toBeLessThan(tail.bytes.length / 20);
  });
});

describe("acceptsGzip", () => {
  it("reads Accept-Encoding as RFC 9110 does: named codings, weights, the wildcard", () => {
    const yes = ["gzip", "gzip, deflate, br", "br;q=1.0, gzip;q=0.8", "x-gzip", "*", "identity, *;q=0.5", "GZIP", ["deflate", "gzip"]];
    const no = [undefined, "", "identity", "br, deflate", "gzip;q=0", "gzip; q=0.0, *", "*;q=0", "br, *;q=0"];
    for (const h of yes) expect([h, acceptsGzip(h)]).toEqual([h, true]);
    for (const h of no) expect([h, acceptsGzip(h)]).toEqual([h, false]);
  });
});
