import { setTimeout as delay } from "node:timers/promises";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { FormData, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/platform/http";
import { BinaryAnalysisClient } from "../../../src/services/binary-analysis/client";
import { BINARY_ANALYSIS_SPEC } from "../../../src/services/binary-analysis/types";
import { definitionValidator } from "../../../src/platform/schemas/swagger-schemas";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { markerRule, tempDir, writeSample } from "../../helpers/binary-samples";

const LIMIT = 1 << 20;
let emu: TestEmulator;
let base: string;
let workDir: string;
let dir: string;
const errorSchema = definitionValidator(BINARY_ANALYSIS_SPEC, "/components/schemas/error");
const applySchema = definitionValidator(BINARY_ANALYSIS_SPEC, "/paths/~1apply-yara-rules/post/responses/200/content/*~1*/schema");
const b64 = (s: string) => Buffer.from(s).toString("base64");

beforeAll(async () => {
  dir = tempDir();
  workDir = join(dir, "work");
  emu = await startTestEmulator({
    seed: seedFromYaml(`binaryAnalysis:\n  maxUploadBytes: ${LIMIT}\n  maxConcurrentScans: 1\n  workDir: ${workDir}\n`),
  });
  base = `${emu.url}/binary-analysis/v1`;
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends a form as it is (the client would split or refuse it), returning status and JSON body. */
async function post(path: string, form: FormData | string, headers: Record<string, string> = {}) {
  const res = await request(`${base}${path}`, { method: "POST", body: form, headers });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

function fileForm(content = "some file content"): FormData {
  const form = new FormData();
  form.append("file", new Blob([content]), "f.bin");
  return form;
}

const leftovers = () => (existsSync(workDir) ? readdirSync(workDir).filter((n) => n.startsWith("req-")) : []);

describe("request errors in the spec's error shape", () => {
  it("refuses 11 rules with 400 TooManyRules", async () => {
    const form = fileForm();
    for (let i = 0; i < 11; i++) form.append("rules", b64(markerRule(`r${i}`, `M${i}`)));
    const r = await post("/apply-yara-rules", form);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 400, code: "TooManyRules" });
    expect(r.body!.message).toContain("at most 10 rules a request; got 11");
    expect(errorSchema(r.body).errors).toEqual([]);
  });

  it("refuses a rule that does not compile with 400 naming it and the compiler's message", async () => {
    const form = fileForm();
    form.append("rules", b64(markerRule("good", "G")));
    form.append("rules", b64('rule bad {\n  strings: $a = "x"\n  condition: $a and\n}'));
    const r = await post("/apply-yara-rules", form);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 400, code: "RuleCompileError", rule_index: 1 });
    expect(r.body!.message).toMatch(/^rules\[1\] does not compile \(in rule bad, line 4, column 1\): error\[E\d+\]: syntax error/);
    expect(errorSchema(r.body).errors).toEqual([]);
  });

  it("refuses bodies that break the spec, one line each", async () => {
    const noFile = new FormData();
    noFile.append("rules", b64(markerRule("a", "A")));
    const cases: [FormData | string, string][] = [
      [noFile, 'the multipart body has no "file" part'],
      [fileForm(), '"rules" needs at least one rule (base64)'],
      [
        (() => {
          const f = fileForm();
          f.append("rules", "%%% not base64 %%%");
          return f;
        })(),
        "rules[0] is not base64 (each rule is sent as a base64 string)",
      ],
      [
        (() => {
          const f = fileForm();
          f.append("rules", b64(markerRule("a", "A")));
          f.append("is_unpacking_required", "maybe");
          return f;
        })(),
        '"is_unpacking_required" must be "true" or "false"; got "maybe"',
      ],
    ];
    for (const [form, message] of cases) {
      const r = await post("/apply-yara-rules", form);
      expect([r.status, r.body?.message]).toEqual([400, message]);
      expect(errorSchema(r.body).errors).toEqual([]);
    }
    const notMultipart = await post("/apply-yara-rules", '{"file":"x"}', { "content-type": "application/json" });
    expect(notMultipart.status).toBe(400);
    expect(notMultipart.body!.message).toMatch(/^the body must be multipart\/form-data/);
  });

  it("answers 200 in the spec's shape", async () => {
    const form = fileForm("..HELLO..");
    form.append("rules", b64(markerRule("hello", "HELLO")));
    form.append("is_unpacking_required", "false");
    const r = await post("/apply-yara-rules", form);
    expect(r.status).toBe(200);
    expect(applySchema(r.body).errors).toEqual([]);
    expect(r.body).toMatchObject({
      result: { is_success: true, matched_yara_rules: [[{ rule: "hello", string_information: ["0x2:5:$m: HELLO"], tags: ["sample"] }]] },
    });
  });
});

describe("answers in the spec's shapes", () => {
  it("emulation-output, generate-partial-yara-rules and unpack's 400", async () => {
    const emulation = await post("/emulation-output", fileForm("MZ-not-really"));
    expect(emulation.status).toBe(200);
    expect(
      definitionValidator(BINARY_ANALYSIS_SPEC, "/paths/~1emulation-output/post/responses/200/content/*~1*/schema")(emulation.body).errors,
    ).toEqual([]);
    const lines = emulation.body!.output as string[];
    expect(lines[0]).toMatch(/^static report, not an emulation/);
    expect(lines).toContain("format: unknown (e_lfanew at offset 0x3c lies outside the file)");
    const form = fileForm("some strings: alpha-bravo-charlie, delta-echo-foxtrot");
    form.append("minimum_string_length", "5");
    form.append("strings_to_ignore", "nothing");
    const generated = await post("/generate-partial-yara-rules", form);
    expect(generated.status).toBe(200);
    expect(
      definitionValidator(
        BINARY_ANALYSIS_SPEC,
        "/paths/~1generate-partial-yara-rules/post/responses/200/content/*~1*/schema",
      )(generated.body).errors,
    ).toEqual([]);
    const unpack = await post("/unpack", fileForm("plain text"));
    expect(unpack.status).toBe(400);
    expect(unpack.body).toMatchObject({ status: 400, code: "NotPacked" });
    expect(errorSchema(unpack.body).errors).toEqual([]);
  });
});

describe("upload limits", () => {
  it("answers 413 to a file over the limit whose length is declared, through the client", async () => {
    const big = writeSample(dir, "big.bin", [Buffer.alloc(LIMIT * 3, 1)]);
    const client = new BinaryAnalysisClient({ endpoint: base });
    const e = (await client.applyYaraRules(big, [{ name: "a.yar", source: markerRule("a", "A") }]).catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code]).toEqual([413, "PayloadTooLarge"]);
    expect(e.message).toContain(`exceeds this service's limit of ${LIMIT} bytes`);
  });

  it("answers 413 to a streamed upload (no length) once it passes the limit, and keeps nothing", async () => {
    const boundary = "stackwarden-test-boundary";
    async function* body() {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="rules"\r\n\r\n${b64(markerRule("a", "A"))}\r\n`);
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      );
      for (let i = 0; i < 3 * 4; i++) yield Buffer.alloc(LIMIT / 4, 2);
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const res = await request(`${base}/apply-yara-rules`, {
      method: "POST",
      body: Readable.from(body()),
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.statusCode).toBe(413);
    const parsed = (await res.body.json()) as Record<string, unknown>;
    expect(parsed).toMatchObject({ status: 413, code: "PayloadTooLarge" });
    expect(errorSchema(parsed).errors).toEqual([]);
    await waitFor(() => leftovers().length === 0);
  });
});

describe("temporary files", () => {
  it("are removed after success and after an error", async () => {
    const client = new BinaryAnalysisClient({ endpoint: base });
    const f = writeSample(dir, "ok.bin", ["abc"]);
    await client.applyYaraRules(f, [{ name: "a.yar", source: markerRule("a", "abc") }]);
    await client.applyYaraRules(f, [{ name: "bad.yar", source: "rule {" }]).catch(() => undefined);
    expect(leftovers()).toEqual([]);
  });

  it("are removed when the client goes away in the middle of an upload", async () => {
    const boundary = "stackwarden-abort-boundary";
    const controller = new AbortController();
    let release!: () => void;
    const stalled = new Promise<void>((r) => (release = r));
    async function* body() {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.bin"\r\n\r\n`);
      yield Buffer.alloc(256 * 1024, 3);
      await stalled; // the upload stops here until the test aborts it
    }
    const sent = request(`${base}/apply-yara-rules`, {
      method: "POST",
      body: Readable.from(body()),
      signal: controller.signal,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    }).catch((e: unknown) => e);
    // The upload is being written to a request directory...
    await waitFor(() => leftovers().length === 1 && readdirSync(join(workDir, leftovers()[0])).includes("upload.bin"));
    controller.abort();
    release();
    expect(((await sent) as Error).name).toBe("AbortError");
    // ... which is gone once the server has seen the client leave.
    await waitFor(() => leftovers().length === 0);
    // The service still answers afterwards.
    const form = fileForm("HELLO");
    form.append("rules", b64(markerRule("hello", "HELLO")));
    expect((await post("/apply-yara-rules", form)).status).toBe(200);
  });

  it("/clean answers 204 and leaves active requests alone", async () => {
    const res = await request(`${base}/clean`, { method: "HEAD" });
    await res.body.dump();
    expect(res.statusCode).toBe(204);
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error("condition not reached in time");
    await delay(20);
  }
}
