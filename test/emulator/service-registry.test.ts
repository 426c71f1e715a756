import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalService } from "../../src/emulator/kit/local-service";
import { LOCAL_SERVICES, registerLocalService } from "../../src/emulator/services";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";

/**
 * A local service registered at run time is served like a built-in one: its seed section is
 * validated with the others, its routes get ARM's conventions (api-version, bearer token).
 */
interface Greetings {
  greetings: { name: string; text: string }[];
}

const greetingsLocal: LocalService<Greetings, Greetings> = {
  name: "greetings",
  seedSchema: {
    type: "object",
    additionalProperties: false,
    properties: { greetings: { type: "array", items: { type: "object", required: ["name", "text"] } } },
  },
  initialState: (seed) => ({ greetings: seed?.greetings ?? [] }),
  mount(ctx) {
    ctx.arm("GET", "/subscriptions/:subscriptionId/providers/Test.Greetings/greetings/:name", ["2021-11-01"], (req) => {
      const g = ctx.state().greetings.find((x) => x.name === req.params.name);
      return g ? { status: 200, body: { id: req.path, name: g.name, properties: { text: g.text } } } : { status: 404, body: {} };
    });
  },
};

let t: TestEmulator;
beforeAll(async () => {
  registerLocalService(greetingsLocal);
  t = await startTestEmulator({ seed: seedFromYaml("greetings:\n  greetings:\n    - { name: hello, text: Hello there }\n") });
});
afterAll(() => t?.close());

describe("registerLocalService", () => {
  it("adds the service after the built-in ones; a taken or reserved name is refused", () => {
    expect(LOCAL_SERVICES.at(-1)).toBe(greetingsLocal);
    expect(() => registerLocalService({ ...greetingsLocal })).toThrow(/already exists/);
    expect(() => registerLocalService({ ...greetingsLocal, name: "faults" })).toThrow(/already exists/);
    expect(() => registerLocalService({ ...greetingsLocal, name: "Bad-Name" })).toThrow(/camelCase/);
  });

  it("its seed section is validated like any other", () => {
    expect(() => seedFromYaml("greetings:\n  greetings:\n    - { name: hello }\n")).toThrow(/greetings/);
  });

  it("its routes are served with ARM's conventions", async () => {
    const token = (await t.credential.getToken("https://management.azure.com/.default"))!.token;
    const url = `${t.url}/subscriptions/s1/providers/Test.Greetings/greetings/hello`;
    const ok = await fetch(`${url}?api-version=2021-11-01`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ name: "hello", properties: { text: "Hello there" } });
    const noVersion = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect((await noVersion.json()) as object).toMatchObject({ error: { code: "MissingApiVersionParameter" } });
    const noToken = await fetch(`${url}?api-version=2021-11-01`);
    expect(noToken.status).toBe(401);
  });
});
