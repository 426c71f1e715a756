import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { e2eCli, e2eRequired, explain, REPO_ROOT } from "../helpers/pulumi-cli";
import { previewSteps, STAND_IN_BIN, YamlProgram, yamlLanguageHost } from "../helpers/yaml-program";

// A Pulumi YAML program declaring azure-native resources, run by the real Pulumi CLI with Pulumi
// YAML's language host (npm run pulumi:install builds it from the Go module proxy) and a STAND-IN
// for the azure-native provider plugin (test/e2e/stand-ins/: the real plugin's binaries come from
// GitHub releases, which cannot be reached here). The stand-in serves the real schema's tokens and
// property shapes (specs/pulumi-azure-native/schema-excerpt.json) and echoes inputs as outputs, so
// what this proves is the program's path through the CLI, not Azure's behaviour. With
// `--policy-pack policies` the stackwarden pack judges the program's planned state (issue 43).

const cli = e2eCli();

if (!cli && e2eRequired()) {
  it("has a Pulumi CLI (STACKWARDEN_E2E=required)", () => {
    expect.fail("STACKWARDEN_E2E=required but no Pulumi CLI was found: run `npm run pulumi:install`");
  });
}

const excerpt = JSON.parse(readFileSync(join(REPO_ROOT, "specs", "pulumi-azure-native", "schema-excerpt.json"), "utf8")) as {
  version: string;
  resources: Record<string, unknown>;
};
const SUBSCRIPTION = "00000000-0000-0000-0000-000000000000";
const SERVER_ID = `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg-stackwarden-e2e/providers/Microsoft.Sql/servers/sql-stackwarden-e2e`;
/** The engine's marker for a value only known after apply (an output of another resource, at preview). */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

const PROGRAM = {
  resources: {
    server: {
      type: "azure-native:sql:Server",
      properties: {
        resourceGroupName: "rg-stackwarden-e2e",
        serverName: "sql-stackwarden-e2e",
        location: "westeurope",
        administratorLogin: "sqladmin",
        administratorLoginPassword: { "fn::secret": "e2e-only-not-a-password" },
        identity: { type: "SystemAssigned" },
      },
    },
    database: {
      type: "azure-native:sql:Database",
      properties: { resourceGroupName: "rg-stackwarden-e2e", serverName: "${server.name}", databaseName: "orders", location: "westeurope" },
    },
    tde: {
      type: "azure-native:sql:TransparentDataEncryption",
      properties: {
        resourceGroupName: "rg-stackwarden-e2e",
        serverName: "${server.name}",
        databaseName: "${database.name}",
        state: "Disabled",
      },
    },
  },
};

describe.skipIf(!cli)("a Pulumi YAML program over azure-native resources (stand-in azure-native provider)", () => {
  let program: YamlProgram;

  beforeAll(async () => {
    expect(yamlLanguageHost(cli!), `no pulumi-language-yaml in ${cli!.binDir}: run npm run pulumi:install`).toBeDefined();
    program = new YamlProgram({ cli: cli!, name: "azure-native-yaml", standIns: true });
    program.write(PROGRAM);
    const init = await program.initStack();
    expect(init.code, explain(init)).toBe(0);
  });

  afterAll(() => program?.cleanup());

  it("previews: the server, database and TDE with their azure-native types, the TDE Disabled, outputs of other resources unknown", async () => {
    const r = await program.preview({ json: true });
    expect(r.code, explain(r)).toBe(0);
    // The provider is the stand-in, found on PATH where only YamlProgram puts it (--json: the CLI's warning is in the diagnostics).
    expect(r.output).toContain(`using pulumi-resource-azure-native from $PATH at ${join(STAND_IN_BIN, "pulumi-resource-azure-native")}`);
    const creates = previewSteps(r).filter((s) => s.op === "create" && !s.type.startsWith("pulumi:"));
    expect(creates.map((s) => [s.urn.split("::").pop(), s.type])).toEqual([
      ["server", "azure-native:sql:Server"],
      ["database", "azure-native:sql:Database"],
      ["tde", "azure-native:sql:TransparentDataEncryption"],
    ]);
    const [server, database, tde] = creates;
    expect(tde.inputs).toEqual({ resourceGroupName: "rg-stackwarden-e2e", serverName: UNKNOWN, databaseName: UNKNOWN, state: "Disabled" });
    expect(database.inputs.serverName).toBe(UNKNOWN);
    expect(server.inputs.identity).toEqual({ type: "SystemAssigned" });
    expect(server.inputs.administratorLoginPassword).toBe("[secret]");
    expect(r.output).not.toContain("e2e-only-not-a-password");
  });

  it("the stand-in serves the excerpt's schema and version, and says it is a stand-in", async () => {
    const r = await program.pulumi(["package", "get-schema", join(STAND_IN_BIN, "pulumi-resource-azure-native")]);
    expect(r.code, explain(r)).toBe(0);
    const schema = JSON.parse(r.stdout) as { name: string; version: string; description: string; resources: Record<string, unknown> };
    expect(schema.name).toBe("azure-native");
    expect(schema.version).toBe(excerpt.version);
    expect(schema.description).toMatch(/^STAND-IN for the azure-native provider/);
    expect(Object.keys(schema.resources).sort()).toEqual(Object.keys(excerpt.resources).sort());
  });

  it("ups: ids shaped like ARM's, inputs echoed as outputs, the secret encrypted; then nothing to change", async () => {
    const up = await program.up();
    expect(up.code, explain(up)).toBe(0);
    const exported = await program.pulumi(["stack", "export", "--stack", "dev"]);
    expect(exported.code, explain(exported)).toBe(0);
    expect(exported.stdout).not.toContain("e2e-only-not-a-password");
    const resources = (
      JSON.parse(exported.stdout) as {
        deployment: { resources: { type: string; id?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }[] };
      }
    ).deployment.resources;
    const byType = (t: string) => resources.find((x) => x.type === t)!;
    expect(byType("azure-native:sql:Server").id).toBe(SERVER_ID);
    expect(byType("azure-native:sql:Database").id).toBe(`${SERVER_ID}/databases/orders`);
    const tde = byType("azure-native:sql:TransparentDataEncryption");
    expect(tde.id).toBe(`${SERVER_ID}/databases/orders/transparentDataEncryption/current`);
    expect(tde.outputs).toEqual({ ...tde.inputs, name: "current" });
    expect(tde.inputs).toEqual({
      resourceGroupName: "rg-stackwarden-e2e",
      serverName: "sql-stackwarden-e2e",
      databaseName: "orders",
      state: "Disabled",
    });
    const password = byType("azure-native:sql:Server").outputs?.administratorLoginPassword as Record<string, unknown>;
    expect(password.ciphertext, "the secret input stays a secret output").toBeDefined();

    const again = await program.preview({ args: ["--expect-no-changes"] });
    expect(again.code, explain(again)).toBe(0);
  });
});

/** The program with a TDE state and a key-custody chain: Vault, Key in it, ServerKey with the key's URI, the server's protector on it. */
function programWith(opts: { tde: string; purgeProtection: boolean; keyExpires?: number }) {
  return {
    resources: {
      ...PROGRAM.resources,
      tde: { ...PROGRAM.resources.tde, properties: { ...PROGRAM.resources.tde.properties, state: opts.tde } },
      vault: {
        type: "azure-native:keyvault:Vault",
        properties: {
          resourceGroupName: "rg-stackwarden-e2e",
          vaultName: "kv-stackwarden-e2e",
          location: "westeurope",
          properties: {
            tenantId: "11111111-1111-1111-1111-111111111111",
            sku: { family: "A", name: "standard" },
            ...(opts.purgeProtection ? { enablePurgeProtection: true } : {}),
          },
        },
      },
      key: {
        type: "azure-native:keyvault:Key",
        properties: {
          resourceGroupName: "rg-stackwarden-e2e",
          vaultName: "${vault.name}",
          keyName: "tde",
          properties: { kty: "RSA", keySize: 2048, ...(opts.keyExpires ? { attributes: { expires: opts.keyExpires } } : {}) },
        },
      },
      serverKey: {
        type: "azure-native:sql:ServerKey",
        properties: {
          resourceGroupName: "rg-stackwarden-e2e",
          serverName: "${server.name}",
          keyName: "kv-stackwarden-e2e_tde_0123456789abcdef0123456789abcdef",
          serverKeyType: "AzureKeyVault",
          uri: "${key.keyUriWithVersion}",
        },
      },
      protector: {
        type: "azure-native:sql:EncryptionProtector",
        properties: {
          resourceGroupName: "rg-stackwarden-e2e",
          serverName: "${server.name}",
          encryptionProtectorName: "current",
          serverKeyName: "${serverKey.name}",
          serverKeyType: "AzureKeyVault",
        },
      },
    },
  };
}

describe.skipIf(!cli)("pulumi preview --policy-pack policies over a Pulumi YAML program (stand-in azure-native provider)", () => {
  let program: YamlProgram;
  const PACK = join(REPO_ROOT, "policies");

  beforeAll(async () => {
    expect(yamlLanguageHost(cli!), `no pulumi-language-yaml in ${cli!.binDir}: run npm run pulumi:install`).toBeDefined();
    program = new YamlProgram({ cli: cli!, name: "azure-native-yaml-pack", standIns: true });
    program.write(programWith({ tde: "Disabled", purgeProtection: false }));
    const init = await program.initStack();
    expect(init.code, explain(init)).toBe(0);
  });

  afterAll(() => program?.cleanup());

  it("blocked for a disabled TDE, a key without expiry and a vault without purge protection, each on its resource", async () => {
    program.write(programWith({ tde: "Disabled", purgeProtection: false }));
    const r = await program.preview({ policyPacks: [PACK] });
    expect(r.code, explain(r)).not.toBe(0);
    expect(r.output).toMatch(/- \[mandatory\]\s+sql-tde-enabled\s+\(azure-native:sql:TransparentDataEncryption: tde\)/);
    expect(r.output).toContain("must have transparent data encryption Enabled; the stack sets it to Disabled");
    // The protector's key flows from ServerKey and Key outputs, unknown at preview: followed through the engine's property dependencies.
    expect(r.output).toMatch(/- \[mandatory\]\s+tde-key-validity\s+\(azure-native:sql:EncryptionProtector: protector\)/);
    expect(r.output).toContain("The TDE protector key kv-stackwarden-e2e/tde of SQL server rg-stackwarden-e2e/sql-stackwarden-e2e must be");
    expect(r.output).toContain("it has no expiration date");
    expect(r.output).toMatch(/- \[mandatory\]\s+tde-key-vault-recoverable\s+\(azure-native:sql:EncryptionProtector: protector\)/);
  });

  it("passes once fixed: TDE Enabled, the key expiring in two years, purge protection on", async () => {
    program.write(programWith({ tde: "Enabled", purgeProtection: true, keyExpires: Math.floor(Date.now() / 1000) + 2 * 365 * 86_400 }));
    const r = await program.preview({ policyPacks: [PACK] });
    expect(r.code, explain(r)).toBe(0);
    expect(r.output).not.toMatch(/\[mandatory\]/);
    // The server's identity gets its principal id from Azure at creation: tde-key-access is not judged before, so says nothing.
    expect(r.output).not.toContain("tde-key-access");
  });
});
