import { describe, expect, it } from "vitest";
import { parseStackConfig, stackConfigFromValues } from "../../../src/domain/stack/stack-config";
import { exemptionNames, tagsInScope, type ScopedDatabase } from "../../../src/domain/stack/stack-scope";
import { YamlInputError } from "../../../src/platform/yaml/located-yaml";

const SUB = "00000000-0000-0000-0000-000000000000";
const HEAD = `config:\n  stackwarden:subscriptionId: ${SUB}\n`;
const FILE = "stacks/Pulumi.t.yaml";

function refusal(text: string): YamlInputError {
  try {
    parseStackConfig(FILE, text, {});
  } catch (e) {
    expect(e).toBeInstanceOf(YamlInputError);
    return e as YamlInputError;
  }
  throw new Error("the stack must be refused");
}

describe("stackwarden:scope", () => {
  it("reads subscriptions, groups, tag filters, the desired state, remediation and exemptions, located", () => {
    const stack = parseStackConfig(
      FILE,
      `${HEAD}  stackwarden:scope:
    subscriptions: [${SUB}, 11111111-1111-1111-1111-111111111111]
    resourceGroups: [rg-data]
    tags:
      include: { env: prod }
      exclude: { lifecycle: "*" }
    remediate: true
    exemptions:
      - { server: sql-legacy-1, reason: decommissioned in Q1, expires: "2030-01-31" }
      - { tag: "owner=lab", rules: [sql-tde-enabled], reason: lab data }
`,
      {},
    );
    expect(stack.scope).toEqual({
      subscriptions: [SUB, "11111111-1111-1111-1111-111111111111"],
      resourceGroups: ["rg-data"],
      includeTags: { env: "prod" },
      excludeTags: { lifecycle: "*" },
      transparentDataEncryption: "Enabled",
      remediate: true,
      exemptions: [
        {
          target: "server",
          value: "sql-legacy-1",
          reason: "decommissioned in Q1",
          expires: "2030-01-31",
          source: { file: FILE, line: 11, column: 9 },
        },
        { target: "tag", value: "owner=lab", rules: ["sql-tde-enabled"], reason: "lab data", source: { file: FILE, line: 12, column: 9 } },
      ],
      source: { file: FILE, line: 4, column: 5 },
    });
  });

  it("defaults to the stack's subscription, every group, TDE Enabled, no remediation", () => {
    const stack = parseStackConfig(FILE, `${HEAD}  stackwarden:scope: {}\n`, {});
    expect(stack.scope).toMatchObject({
      subscriptions: [SUB],
      includeTags: {},
      excludeTags: {},
      transparentDataEncryption: "Enabled",
      remediate: false,
    });
    expect(stack.scope?.resourceGroups).toBeUndefined();
    expect(parseStackConfig(FILE, HEAD, {}).scope).toBeUndefined();
  });

  it("locates an unknown key, a bad subscription, a bad expiry and an unknown rule at their lines", () => {
    const unknown = refusal(`${HEAD}  stackwarden:scope:\n    subscription: [${SUB}]\n`);
    expect([unknown.line, unknown.keyPath]).toEqual([4, "config.stackwarden:scope.subscription"]);
    const guid = refusal(`${HEAD}  stackwarden:scope:\n    subscriptions: [not-a-guid]\n`);
    expect([guid.line, guid.keyPath]).toEqual([4, "config.stackwarden:scope.subscriptions[0]"]);
    const expiry = refusal(`${HEAD}  stackwarden:scope:\n    exemptions:\n      - { server: sql-a, reason: r, expires: tomorrow }\n`);
    expect([expiry.line, expiry.keyPath]).toEqual([5, "config.stackwarden:scope.exemptions[0].expires"]);
    const rule = refusal(`${HEAD}  stackwarden:scope:\n    exemptions:\n      - { server: sql-a, reason: r, rules: [no-such-rule] }\n`);
    expect(rule.keyPath).toBe("config.stackwarden:scope.exemptions[0].rules[0]");
  });

  it("refuses an exemption that names nothing, or two things, at its line", () => {
    const none = refusal(`${HEAD}  stackwarden:scope:\n    exemptions:\n      - { reason: why }\n`);
    expect([none.line, none.keyPath]).toEqual([5, "config.stackwarden:scope.exemptions[0]"]);
    expect(none.message).toMatch(/one of database, server, resourceGroup or tag/);
    const two = refusal(`${HEAD}  stackwarden:scope:\n    exemptions:\n      - { server: sql-a, tag: env, reason: why }\n`);
    expect(two.message).toMatch(/names server and tag/);
  });

  it("is validated the same from Pulumi's config values", () => {
    expect(() =>
      stackConfigFromValues({ "stackwarden:subscriptionId": SUB, "stackwarden:scope": { remediate: "yes" } }, "Pulumi.t.yaml"),
    ).toThrow(/stackwarden:scope\.remediate/);
  });
});

describe("an unquoted expiry day, as Pulumi's CLI hands it over (a YAML timestamp at midnight)", () => {
  it("is the day in the scope's and the stack's exemptions, as check reads it from the file", () => {
    const stack = stackConfigFromValues(
      {
        "stackwarden:subscriptionId": SUB,
        "stackwarden:scope": {
          subscriptions: [SUB],
          exemptions: [{ server: "sql-legacy-1", reason: "decommissioned", expires: "2099-12-31T00:00:00Z" }],
        },
        "stackwarden:exemptions": [
          {
            resourceId: `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s/databases/d`,
            reason: "r",
            expires: "2098-01-02T00:00:00Z",
          },
        ],
      },
      "Pulumi.t.yaml",
    );
    const fromFile = parseStackConfig(
      FILE,
      `${HEAD}  stackwarden:scope:\n    subscriptions: [${SUB}]\n    exemptions:\n      - { server: sql-legacy-1, reason: decommissioned, expires: 2099-12-31 }\n`,
      {},
    );
    expect(stack.scope!.exemptions[0].expires).toBe("2099-12-31");
    expect(fromFile.scope!.exemptions[0].expires).toBe("2099-12-31");
    expect(stack.exemptions[0].expires).toBe("2098-01-02");
  });

  it("a time that is not midnight is still refused as not a date", () => {
    expect(() =>
      stackConfigFromValues(
        {
          "stackwarden:subscriptionId": SUB,
          "stackwarden:scope": { subscriptions: [SUB], exemptions: [{ server: "s", reason: "r", expires: "2099-12-31T10:00:00Z" }] },
        },
        "Pulumi.t.yaml",
      ),
    ).toThrow(/expires: .*format "date"/);
  });
});

describe("scope matching", () => {
  const db: ScopedDatabase = {
    subscriptionId: SUB,
    resourceGroup: "rg-Data",
    server: "sql-a",
    database: "Orders",
    tags: { Env: "prod", owner: "lab" },
  };
  it("tag filters: include needs every tag, exclude any; names caseless, * any value", () => {
    expect(tagsInScope({ includeTags: { env: "prod" }, excludeTags: {} }, db.tags)).toBe(true);
    expect(tagsInScope({ includeTags: { env: "prod", team: "*" }, excludeTags: {} }, db.tags)).toBe(false);
    expect(tagsInScope({ includeTags: {}, excludeTags: { owner: "*" } }, db.tags)).toBe(false);
    expect(tagsInScope({ includeTags: {}, excludeTags: { owner: "ops" } }, db.tags)).toBe(true);
  });
  it("an exemption names a database, server, group or tag", () => {
    const e = (target: "database" | "server" | "resourceGroup" | "tag", value: string) => ({ target, value, reason: "r" });
    expect(exemptionNames(e("database", "sql-a/orders"), db)).toBe(true);
    expect(exemptionNames(e("database", "sql-a/other"), db)).toBe(false);
    expect(exemptionNames(e("server", "SQL-A"), db)).toBe(true);
    expect(exemptionNames(e("resourceGroup", "rg-data"), db)).toBe(true);
    expect(exemptionNames(e("tag", "owner=lab"), db)).toBe(true);
    expect(exemptionNames(e("tag", "owner=ops"), db)).toBe(false);
    expect(exemptionNames(e("tag", "env"), db)).toBe(true);
  });
});
