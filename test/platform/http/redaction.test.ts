import { describe, expect, it } from "vitest";
import {
  REDACTED,
  Redactor,
  redactHeaders,
  redactUrl as httpOnlyRedactUrl,
  scrubSecrets,
  scrubTokens,
} from "../../../src/platform/redaction";

/** A service's redactor: HTTP's own names plus the ones this service declared safe (never its keys), its request-id header among them. */
const service = new Redactor({
  query: ["api-version", "$skiptoken", "address"],
  headers: ["x-apisetu-clientid", "x-ms-request-id"],
});
const redactUrl = (u: string | URL) => service.url(u);

describe("src/platform/http knows no service", () => {
  it("without declared names every query value is hidden, service headers too (ARM's request ids included)", () => {
    const u = new URL(httpOnlyRedactUrl("https://h/p?api-version=1&address=Paris&api_key=k-123456"));
    expect([...u.searchParams.values()]).toEqual([REDACTED, REDACTED, REDACTED]);
    expect(
      redactHeaders({ "x-apisetu-clientid": "c", "x-ms-request-id": "r", "content-type": "text/plain", "x-ms-retry-after-ms": "5" }),
    ).toEqual({
      "x-apisetu-clientid": REDACTED,
      "x-ms-request-id": REDACTED,
      "content-type": "text/plain",
      // The generic retry policy reads it (as Azure's core does), so HTTP's own list keeps it.
      "x-ms-retry-after-ms": "5",
    });
  });

  it("allow() adds names and keeps the earlier ones", () => {
    const more = service.allow({ query: ["lat"] });
    expect(new URL(more.url("http://h/?lat=1&address=x&api_key=s")).search).toBe(`?lat=1&address=x&api_key=${REDACTED}`);
  });
});

describe("redactUrl", () => {
  it("replaces secret-bearing and unknown query values, keeps allowlisted ones", () => {
    const out = redactUrl(
      "https://api.example.com/geocoding/geocode?api_key=k-123456&address=Paris&sig=abcdef&code=xyz&api-version=2014-04-01&weird=1",
    );
    const u = new URL(out);
    expect(u.searchParams.get("api_key")).toBe(REDACTED);
    expect(u.searchParams.get("sig")).toBe(REDACTED);
    expect(u.searchParams.get("code")).toBe(REDACTED);
    expect(u.searchParams.get("weird")).toBe(REDACTED);
    expect(u.searchParams.get("api-version")).toBe("2014-04-01");
    expect(u.searchParams.get("address")).toBe("Paris");
    expect(out).not.toContain("k-123456");
    expect(out).not.toContain("abcdef");
    expect(out).not.toContain("xyz");
  });

  it("keeps the order, the path and the allowlisted names case-insensitively", () => {
    expect(redactUrl("http://h:81/a/b?API-Version=1&token=t0p&$skiptoken=abc")).toBe(
      `http://h:81/a/b?API-Version=1&token=${REDACTED}&%24skiptoken=abc`,
    );
  });

  it("redacts user info in the authority", () => {
    const out = redactUrl("https://alice:hunter22@example.com/x");
    expect(out).not.toContain("hunter22");
    expect(out).not.toContain("alice");
  });

  it("accepts URL objects, leaves query-less URLs alone and never throws", () => {
    expect(redactUrl(new URL("http://h/p?sv=1&sig=s3cr3t"))).toBe(`http://h/p?sv=${REDACTED}&sig=${REDACTED}`);
    expect(redactUrl("http://h/p")).toBe("http://h/p");
    expect(redactUrl("not a url?api_key=abc")).toBe("<unparseable url>");
  });
});

describe("redactHeaders", () => {
  it("prints only allowlisted headers", () => {
    const out = service.headerValues({
      authorization: "Bearer eyJabc.def.ghi",
      "X-APISETU-APIKEY": "key-abcdef",
      "x-apisetu-clientid": "client-1",
      cookie: "session=1",
      "x-custom": "whatever",
      "content-type": "application/json",
      "x-ms-request-id": "rid-1",
      "Retry-After": "5",
      "set-cookie": ["a=1", "b=2"],
      absent: undefined,
    });
    expect(out).toEqual({
      authorization: REDACTED,
      "X-APISETU-APIKEY": REDACTED,
      "x-apisetu-clientid": "client-1",
      cookie: REDACTED,
      "x-custom": REDACTED,
      "content-type": "application/json",
      "x-ms-request-id": "rid-1",
      "Retry-After": "5",
      "set-cookie": REDACTED,
    });
  });
});

describe("scrubSecrets and scrubTokens", () => {
  it("scrubSecrets replaces every occurrence of each known secret", () => {
    expect(scrubSecrets("key k-123456 was k-123456; other s3cr3t", ["k-123456", "s3cr3t"])).toBe(
      `key ${REDACTED} was ${REDACTED}; other ${REDACTED}`,
    );
  });

  it("scrubSecrets ignores empty and very short secrets", () => {
    expect(scrubSecrets("a b abc", ["", "a", "abc"])).toBe("a b abc");
  });

  it("scrubTokens hides bearer tokens and bare JWTs", () => {
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXZhbHVl";
    expect(scrubTokens(`Authorization: Bearer opaque-token_123==, next`)).toBe(`Authorization: Bearer ${REDACTED}, next`);
    expect(scrubTokens(`token=${jwt} end`)).toBe(`token=${REDACTED} end`);
    expect(scrubTokens(`{"access_token":"${jwt}"}`)).toBe(`{"access_token":"${REDACTED}"}`);
    expect(scrubTokens("nothing secret here: eyJ is just a prefix")).toBe("nothing secret here: eyJ is just a prefix");
  });
});
