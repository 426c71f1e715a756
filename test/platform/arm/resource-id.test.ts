import { describe, expect, it } from "vitest";
import {
  batchUsagesId,
  batchWorkspaceId,
  databaseLabel,
  databaseRefOf,
  elasticPoolId,
  elasticPoolRefOf,
  leafName,
  oddResourceId,
  parseResourceId,
  pathStyle,
  sameResourceId,
  sqlDatabaseId,
  tdeConfigurationId,
  workspaceRefOf,
} from "../../../src/platform/arm/resource-id";

const db = { subscriptionId: "sub-1", resourceGroup: "rg", server: "srv", database: "orders" };

describe("ARM resource ids", () => {
  it("builds ids with the real namespace and request paths with each name encoded in the client's spelling", () => {
    expect(sqlDatabaseId(db)).toBe("/subscriptions/sub-1/resourceGroups/rg/providers/Microsoft.Sql/servers/srv/databases/orders");
    expect(tdeConfigurationId(db)).toBe(`${sqlDatabaseId(db)}/transparentDataEncryption/current`);
    expect(elasticPoolId({ ...db, elasticPool: "pool a" }, pathStyle("described"))).toBe(
      "/subscriptions/sub-1/resourceGroups/rg/providers/Provider.Sql/servers/srv/elasticPools/pool%20a",
    );
    expect(batchWorkspaceId({ subscriptionId: "s", resourceGroup: "g", workspace: "w" })).toBe(
      "/subscriptions/s/resourceGroups/g/providers/Microsoft.BatchAI/workspaces/w",
    );
    expect(batchUsagesId({ subscriptionId: "s", location: "eastus" }, undefined, "Standard NC")).toBe(
      "/subscriptions/s/providers/Microsoft.BatchAI/locations/eastus/usages/Standard NC",
    );
  });

  it("parses what it builds, in either spelling and any case", () => {
    for (const id of [
      tdeConfigurationId(db),
      tdeConfigurationId(db).toUpperCase().replace("SUB-1", "sub-1").replace("RG", "rg").replace("SRV", "srv").replace("ORDERS", "orders"),
      sqlDatabaseId(db, pathStyle("described")),
    ]) {
      expect(databaseRefOf(id)).toEqual(db);
    }
    const p = parseResourceId("/SUBSCRIPTIONS/s/RESOURCEGROUPS/g/PROVIDERS/provider.batchai/Workspaces/w/clusters/c")!;
    expect(p).toMatchObject({ subscriptionId: "s", resourceGroup: "g", service: "BatchAI", namespace: "provider.batchai" });
    expect(p.segments).toEqual([
      { type: "Workspaces", name: "w" },
      { type: "clusters", name: "c" },
    ]);
    expect(workspaceRefOf("/subscriptions/s/resourceGroups/g/providers/Microsoft.BatchAI/workspaces/w/jobs/j")).toEqual({
      subscriptionId: "s",
      resourceGroup: "g",
      workspace: "w",
    });
    expect(elasticPoolRefOf(elasticPoolId({ ...db, elasticPool: "p" }))).toEqual({
      subscriptionId: "sub-1",
      resourceGroup: "rg",
      server: "srv",
      elasticPool: "p",
    });
  });

  it("is tolerant of odd segments: repeated and trailing slashes, encoded names, a trailing collection", () => {
    expect(databaseRefOf("//subscriptions/sub-1//resourceGroups/rg/providers/Microsoft.Sql/servers/srv/databases/orders/")).toEqual(db);
    expect(databaseRefOf("/subscriptions/sub-1/resourceGroups/rg/providers/Microsoft.Sql/servers/srv/databases/my%20db")!.database).toBe(
      "my db",
    );
    expect(parseResourceId("/subscriptions/s/providers/Microsoft.BatchAI/locations/eastus/usages")!.segments).toEqual([
      { type: "locations", name: "eastus" },
      { type: "usages", name: "" },
    ]);
    expect(leafName("/subscriptions/s/resourceGroups/g/providers/Microsoft.Sql/servers/srv%2F1")).toBe("srv/1");
  });

  it("answers undefined, never throws, for what is not an ARM id of that kind", () => {
    for (const odd of ["", "orders", "/tenants/t", "/subscriptions", 42 as unknown as string]) expect(parseResourceId(odd)).toBeUndefined();
    // A database under another namespace, or a server without a database, is not a database.
    expect(databaseRefOf("/subscriptions/s/resourceGroups/g/providers/Microsoft.Web/servers/srv/databases/d")).toBeUndefined();
    expect(databaseRefOf("/subscriptions/s/resourceGroups/g/providers/Microsoft.Sql/servers/srv")).toBeUndefined();
    expect(workspaceRefOf("/subscriptions/s/resourceGroups/g/providers/Microsoft.BatchAI/clusters/c")).toBeUndefined();
  });

  it("calls an id odd exactly when parseResourceId cannot take it apart", () => {
    const ids = [
      "/subscriptions/s/resourceGroups/g/providers/Microsoft.Sql/servers/srv",
      "subscriptions/s",
      "//SUBSCRIPTIONS//s/",
      "/Subscriptions/s%2F1",
      "/subscriptions",
      "/subscriptions/",
      "/subscriptions//",
      "/subscriptionsX/s",
      "/tenants/t/subscriptions/s",
      " /subscriptions/s",
      "orders",
      "/",
    ];
    for (const id of ids) expect(oddResourceId({ id }) === undefined, id).toBe(parseResourceId(id) !== undefined);
    expect(oddResourceId({ id: "/tenants/t" })).toBe("has the id '/tenants/t', which is not an ARM resource id (/subscriptions/…)");
  });

  it("compares ids as ARM does and labels databases one way", () => {
    expect(sameResourceId(sqlDatabaseId(db), sqlDatabaseId(db, pathStyle("described")).toLowerCase() + "/")).toBe(true);
    expect(sameResourceId(sqlDatabaseId(db), sqlDatabaseId({ ...db, database: "other" }))).toBe(false);
    expect(databaseLabel(db)).toBe("rg/srv/orders");
  });
});
