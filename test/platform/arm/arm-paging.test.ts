import { describe, expect, it } from "vitest";
import { armPager } from "../../../src/platform/arm/arm-paging";

describe("armPager reads ARM list pages", () => {
  const read = armPager<{ id: string }>();

  it("items under value, the next page under nextLink", () => {
    expect(read({ value: [{ id: "a" }], nextLink: "https://h/next?$skiptoken=1" })).toEqual({
      items: [{ id: "a" }],
      nextLink: "https://h/next?$skiptoken=1",
    });
    expect(read({ value: [{ id: "b" }] })).toEqual({ items: [{ id: "b" }], nextLink: undefined });
  });

  it("reads null as absent: a null value is an empty page, a null or empty nextLink the last one", () => {
    expect(read({ value: null, nextLink: null })).toEqual({ items: [], nextLink: undefined });
    expect(read({ value: [], nextLink: "" })).toEqual({ items: [], nextLink: undefined });
  });

  it("a body without a value array is no page, and says why", () => {
    expect(read({ items: [] })).toEqual({ notAPage: 'has no "value" array' });
    expect(read({ value: {} })).toEqual({ notAPage: 'has no "value" array' });
    expect(read(null)).toEqual({ notAPage: 'has no "value" array' });
    expect(read("<html>")).toEqual({ notAPage: 'has no "value" array' });
    expect(read({ value: [], nextLink: 7 })).toEqual({ notAPage: 'has a "nextLink" that is not a string' });
  });

  it("takes the names an x-ms-pageable declares (an OData-style link, another item name)", () => {
    const odata = armPager<number>({ nextLinkName: "@odata.nextLink" });
    expect(odata({ value: [1], "@odata.nextLink": "/p2", nextLink: "/ignored" })).toEqual({ items: [1], nextLink: "/p2" });
    const named = armPager<number>({ itemName: "data" });
    expect(named({ data: [2] })).toEqual({ items: [2], nextLink: undefined });
    expect(named({ value: [2] })).toEqual({ notAPage: 'has no "data" array' });
  });
});
