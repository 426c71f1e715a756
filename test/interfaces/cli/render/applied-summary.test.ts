import { describe, expect, it } from "vitest";
import type { TdeAction, TdePlanItem } from "../../../../src/domain/reconcile/tde-plan";
import { describeApplied } from "../../../../src/interfaces/cli/render/applied-summary";

/** A plan item for database `name`, listed unless `discovered`. */
function item(name: string, action: TdeAction, discovered = false): TdePlanItem {
  const ref = { subscriptionId: "s", resourceGroup: "rg", server: "srv", database: name };
  return {
    desired: {
      ...ref,
      transparentDataEncryption: action === "disable" ? "Disabled" : "Enabled",
      ...(discovered ? { discovered: true } : {}),
    },
    ref,
    id: `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Sql/servers/srv/databases/${name}`,
    live: action === "enable" ? "Disabled" : "Enabled",
    action,
  } as TdePlanItem;
}

describe("describeApplied: what an apply changed, in one phrase", () => {
  it("counts the changed databases, listed and discovered apart, not the stack file's entries", () => {
    expect(describeApplied([item("a", "enable"), item("b", "enable"), item("c", "enable", true)])).toBe(
      "TDE enabled on 3 database(s) (2 listed, 1 discovered)",
    );
    expect(describeApplied([item("a", "enable"), item("b", "disable")])).toBe("TDE enabled on 1 database(s), disabled on 1 database(s)");
    expect(describeApplied([])).toBe("nothing to apply");
  });
});
