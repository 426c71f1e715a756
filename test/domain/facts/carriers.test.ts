import { describe, expect, it } from "vitest";
import { allDataSources, findDataSource } from "../../../src/domain/facts/data-source-registry";
import { defineDataSource, isDataSource } from "../../../src/domain/facts/data-source";
import { carrierOf } from "../../../src/domain/facts/carrier";
import { allFactKinds } from "../../../src/domain/facts/registry";
import { TYPES } from "../../helpers/carrier-types";

/**
 * The Pulumi carriers the fact kinds and the data-source registry declare: each keeps the type
 * token users' state records (a renamed one is a replace in every existing stack), and each data
 * source is found by its token, as the provider plugin finds it.
 */
describe("carriers", () => {
  it("every type token users' state records is still declared (a rename or a removal fails here), each once", () => {
    const declared = [
      ...allFactKinds().flatMap((k) => (k.carrier ? [k.carrier.type] : [])),
      ...allDataSources().map((s) => s.type),
      // The TDE resource is the TDE status kind's carrier; it has a provider of its own.
    ];
    // A carrier declared later adds its token to the declared ones without a word here (its own
    // test pins it); every recorded one must stay.
    expect(declared).toEqual(expect.arrayContaining(Object.values(TYPES)));
    expect(new Set(allDataSources().map((s) => s.type)).size).toBe(allDataSources().length);
  });

  it("every data source is found by its token; a kind's data source comes with the kind", () => {
    for (const s of allDataSources()) expect(findDataSource(s.token), s.token).toBe(s);
    for (const k of allFactKinds()) if (isDataSource(k.carrier)) expect(allDataSources(), k.key).toContain(k.carrier);
    expect(findDataSource("sql:NoSuchThing")).toBeUndefined();
  });

  it("a token not of the shape <module>:<Type>, or an output named like an input, is refused", () => {
    expect(() => carrierOf("sql" as `${string}:${string}`)).toThrow(/must read <module>:<Type>/);
    expect(() =>
      defineDataSource({
        token: "sql:Broken",
        title: "broken",
        inputs: ["subscriptionId", "server"],
        output: "server",
        read: async () => ({ id: "" }),
        inputsFromId: () => undefined,
      }),
    ).toThrow(/the output "server" is also an input/);
  });
});
