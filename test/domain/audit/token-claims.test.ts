import { describe, expect, it } from "vitest";
import { identityClaimsOf } from "../../../src/domain/audit/token-claims";

const jwt = (claims: object) =>
  `${Buffer.from('{"alg":"RS256"}').toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.c2lnbmF0dXJl`;

describe("identity claims of a token", () => {
  it("reads tid, oid and appid (or v2's azp), nothing else", () => {
    const claims = identityClaimsOf(jwt({ tid: "t-1", oid: "o-1", appid: "a-1", upn: "someone@example.com", name: "Some One" }));
    expect(claims).toEqual({ tid: "t-1", oid: "o-1", appid: "a-1" });
    expect(identityClaimsOf(jwt({ tid: "t", oid: "o", azp: "app-v2" }))).toEqual({ tid: "t", oid: "o", appid: "app-v2" });
  });

  it("drops claim values that are not ids", () => {
    expect(identityClaimsOf(jwt({ tid: "x".repeat(500), oid: "has spaces in it", appid: 42 }))).toEqual({
      tid: undefined,
      oid: undefined,
      appid: undefined,
    });
  });

  it("an opaque or broken token gives nothing", () => {
    expect(identityClaimsOf("opaque-token")).toBeUndefined();
    expect(identityClaimsOf("a.!!!.c")).toBeUndefined();
  });
});
