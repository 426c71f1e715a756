import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newClientSet, type ClientSet } from "../../../src/clients/client-set";
import { carrierOf } from "../../../src/domain/facts/carrier";
import { isDataSource } from "../../../src/domain/facts/data-source";
import { defineFactKind } from "../../../src/domain/facts/fact-kind";
import { factsFromResources, gatherFacts } from "../../../src/domain/facts/gather";
import { allFactKinds, registerFactKind } from "../../../src/domain/facts/registry";
import { tierAdvice } from "../../../src/domain/facts/tier-advice";
import { parseStackConfig } from "../../../src/domain/stack/stack-config";
import type { UnreadEntry } from "../../../src/domain/stack/unread-entry";
import { NO_KEPT_STATE } from "../../../src/domain/state/no-kept-state";
import { readDataSource } from "../../../src/interfaces/pulumi/data-source-resource";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

/**
 * One read per fact kind: a kind that declares no `gather` is gathered as the pack builds it, each
 * instance of its data source read with the source's `read` and handed to its `fromResources`, so
 * `check` and the pack cannot disagree. Shown on the service tier advice kind (which declares none):
 * the facts are the pack's, plus the stack-file line and the read's receipt; a database the cloud
 * does not have is reported unread at its line while the others are judged.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - name: orders
          serviceObjective: S0
          serviceTierAdvisors: [{ overallRecommendationServiceLevelObjective: S3, confidence: 0.9 }]
        - { name: quiet, serviceObjective: S1 }
`;
const STACK = `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg, server: s1, database: orders, transparentDataEncryption: Enabled, serviceObjective: S0 }
    - { resourceGroup: rg, server: s1, database: quiet, transparentDataEncryption: Enabled }
    - { resourceGroup: rg, server: s1, database: ghost, transparentDataEncryption: Enabled }
`;

let t: TestEmulator;
let clients: ClientSet;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  clients = newClientSet({ STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint });
});
afterAll(async () => {
  await clients?.close();
  await t?.close();
});

const stack = () => parseStackConfig("Pulumi.toy.yaml", STACK, {});

describe("a kind without a gather of its own is gathered through its carrier", () => {
  it("gives check the pack's facts, with the stack line and the read's receipt; an absent database is unread at its line", async () => {
    expect(tierAdvice.gather).toBeUndefined();
    const s = stack();
    const unread: UnreadEntry[] = [];
    const gathered = (
      await gatherFacts([tierAdvice.key], {
        stack: s,
        stackName: "toy",
        clients,
        cwd: tmpdir(),
        state: NO_KEPT_STATE,
        concurrency: 4,
        note: () => {},
        warn: () => {},
        unread: (e) => unread.push(e),
      })
    ).tierAdvisors;

    // The pack's view: each instance the program registers, created by the data-source provider's read.
    const source = tierAdvice.carrier;
    if (!isDataSource(source)) throw new Error("the tier advice kind's carrier is a data source");
    const known = s.databases
      .filter((d) => d.database !== "ghost")
      .map((d) => source.instances!(s).find((i) => i.inputs.database === d.database)!);
    const resources = await Promise.all(
      known.map(async (i) => ({ type: source.type, props: (await readDataSource(clients, source, i.inputs)).outs, urn: `urn:${i.name}` })),
    );
    const pack = (await factsFromResources([tierAdvice.key], resources, { known: (read) => read(), clients })).tierAdvisors;

    expect(gathered).toHaveLength(3);
    const [orders, quiet, ghost] = gathered;
    const withoutOrigin = ({ origin: _urn, ...f }: (typeof pack)[number]) => f;
    expect({ ...orders, source: undefined, reads: undefined }).toEqual({ ...withoutOrigin(pack[0]), source: undefined, reads: undefined });
    expect({ ...quiet, source: undefined, reads: undefined }).toEqual({ ...withoutOrigin(pack[1]), source: undefined, reads: undefined });
    expect(orders.advisor).toMatchObject({ overallRecommendationServiceLevelObjective: "S3", confidence: 0.9 });
    expect(orders).not.toHaveProperty("origin");
    expect(orders.source).toMatchObject({ file: "Pulumi.toy.yaml", line: 4 });
    expect(orders.reads?.map((r) => [r.operation, r.status])).toEqual([["ServiceTierAdvisors_ListByDatabase", 200]]);

    expect(ghost).toMatchObject({ database: "ghost", advisor: undefined, source: { line: 6 } });
    expect(ghost.unread).toMatch(/the cloud has no such database/);
    expect(unread).toEqual([
      expect.objectContaining({ kind: "database", label: "rg/s1/ghost", status: 404, operation: "ServiceTierAdvisors_ListByDatabase" }),
    ]);
  });

  it("a kind with neither a gather nor a data source to gather through is refused when registered", () => {
    const kind = defineFactKind({
      key: "noWayToRead",
      title: "nothing",
      scope: "server",
      carrier: carrierOf("toy:NoSource"),
      fromResources: () => [],
    });
    expect(() => registerFactKind(kind)).toThrow(/declares no gather, and its carrier is no data source with instances/);
  });

  it("every registered kind can be gathered: its own gather, or a data source with instances", () => {
    for (const k of allFactKinds()) expect(!!k.gather || (isDataSource(k.carrier) && !!k.carrier.instances), k.key).toBe(true);
  });
});
