import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allRules } from "../../src/domain/compliance/registry";
import { loadStackFile } from "../../src/usecases/stack-file";
import { PolicyAnalyzer, urnOf, type AnalyzerResourceInput } from "../helpers/analyzer";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { runCli, stackDir } from "../interfaces/cli/cli-harness";
import { estate, SUB } from "../services/keyvault/key-custody-kit";
import { parseKeyVaultKeyUri } from "../../src/services/keyvault/key-uri";

/**
 * Parity: for the key-custody estate, the pack's verdicts on the azure-native program a team would
 * write for it equal `check`'s on the equivalent stack file. The program declares each database's
 * TDE (as the stack sets it) and each server's protector (as the estate has it, by the server key
 * name Azure gives it, <vault>_<key>_<version>); the servers, vaults and keys it only references
 * are read live by the pack, as `check` reads everything.
 */
const ESTATES = join(__dirname, "../fixtures/estates");
/** The rules a program of TDE and protectors brings facts to: derived from the registry, those that read these kinds only. */
const KINDS = new Set(["databases", "tdeProtectors", "keyVaults", "protectorKeys", "vaultRoleAssignments"]);
const RULES = allRules()
  .filter((r) => r.facts.every((k) => KINDS.has(k)))
  .map((r) => r.id);

describe.each(["key-custody", "key-access"])(
  "parity on the %s estate: the pack on an azure-native program, check on the stack file",
  (name) => {
    const STACK = join(ESTATES, `Pulumi.${name}.yaml`);
    const seed = () => estate(join(ESTATES, `${name}.estate.yaml`));
    let emu: TestEmulator;
    let analyzer: PolicyAnalyzer;
    let dir: string;

    beforeAll(async () => {
      emu = await startTestEmulator({ seed: seed() });
      analyzer = await PolicyAnalyzer.start({
        env: { STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: emu.imdsEndpoint, ARM_SUBSCRIPTION_ID: SUB },
      });
      dir = stackDir({});
      copyFileSync(STACK, join(dir, `Pulumi.${name}.yaml`));
    });

    afterAll(async () => {
      await analyzer?.stop();
      await emu?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const protectorUrn = (server: string) => urnOf("azure-native:sql:EncryptionProtector", `protector-${server}`);
    const tdeUrn = (server: string, database: string) => urnOf("azure-native:sql:TransparentDataEncryption", `tde-${server}-${database}`);

    /** The azure-native program of the estate: a TransparentDataEncryption per stack database, an EncryptionProtector per server. */
    function program(): AnalyzerResourceInput[] {
      const stack = loadStackFile(STACK, {}, process.cwd());
      const servers = ((seed().sql as { servers?: unknown[] } | undefined)?.servers ?? []) as {
        name: string;
        resourceGroup: string;
        encryptionProtector?: { keyUri: string };
      }[];
      return [
        ...stack.databases.map((d) => ({
          type: "azure-native:sql:TransparentDataEncryption",
          name: `tde-${d.server}-${d.database}`,
          urn: tdeUrn(d.server, d.database),
          props: {
            resourceGroupName: d.resourceGroup,
            serverName: d.server,
            databaseName: d.database,
            tdeName: "current",
            state: d.transparentDataEncryption,
          },
        })),
        ...servers.map((s) => {
          const uri = s.encryptionProtector && parseKeyVaultKeyUri(s.encryptionProtector.keyUri)!;
          return {
            type: "azure-native:sql:EncryptionProtector",
            name: `protector-${s.name}`,
            urn: protectorUrn(s.name),
            props: {
              resourceGroupName: s.resourceGroup,
              serverName: s.name,
              encryptionProtectorName: "current",
              ...(uri
                ? { serverKeyType: "AzureKeyVault", serverKeyName: `${uri.vaultName}_${uri.keyName}_${uri.version}` }
                : { serverKeyType: "ServiceManaged", serverKeyName: "ServiceManaged" }),
            },
          };
        }),
      ];
    }

    it("the same failures, at the same levels, with the same messages, each on the program's resource", async () => {
      const r = await runCli(["check", "--config", `Pulumi.${name}.yaml`, "--output", "json"], emu.url, dir);
      expect(r.code, r.err).toBe(3);
      const findings = (
        JSON.parse(r.out) as { findings: { ruleId: string; verdict: string; level: string; label: string; message: string }[] }
      ).findings;
      const fromCheck = findings
        .filter((f) => RULES.includes(f.ruleId) && f.verdict === "fail")
        .map((f) => {
          const [, server, database] = f.label.split("/");
          return { policy: f.ruleId, level: f.level, urn: database ? tdeUrn(server, database) : protectorUrn(server), message: f.message };
        });
      const resources = program();
      const stackPolicies = await analyzer.analyzeStack(resources);
      const resourcePolicies = (
        await Promise.all(resources.map(async (x) => (await analyzer.analyze(x)).map((v) => ({ ...v, urn: x.urn! }))))
      ).flat();
      const fromPack = [...stackPolicies, ...resourcePolicies]
        .filter((v) => RULES.includes(v.policyName))
        .map((v) => ({ policy: v.policyName, level: v.enforcementLevel, urn: v.urn, message: v.detail }));
      const order = (xs: typeof fromPack) =>
        [...xs].sort((a, b) => `${a.urn} ${a.policy} ${a.message}`.localeCompare(`${b.urn} ${b.policy} ${b.message}`));
      // Every case of the estate's table fails somewhere, and check judged them all.
      expect(fromCheck.length).toBeGreaterThan(2);
      expect(order(fromPack)).toEqual(order(fromCheck));
    });
  },
);
