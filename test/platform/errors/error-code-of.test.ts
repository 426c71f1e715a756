import { describe, expect, it } from "vitest";
import { errorCodeOf, leadingCode } from "../../../src/platform/errors/error-code-of";
import { StackwardenError, swCodeOf } from "../../../src/platform/errors/stackwarden-error";
import { ApiError } from "../../../src/platform/http/api-error";
import { callFailureCode } from "../../../src/platform/errors/call-failure-code";

describe("callFailureCode: a failed call's code, by what happened", () => {
  it.each([
    [0, "ECONNREFUSED", "SW_ENDPOINT_UNREACHABLE"],
    [0, "ENOTFOUND", "SW_ENDPOINT_UNREACHABLE"],
    [0, "UND_ERR_CONNECT_TIMEOUT", "SW_ENDPOINT_UNREACHABLE"],
    [0, "UND_ERR_HEADERS_TIMEOUT", "SW_TIMEOUT"],
    [0, "UND_ERR_BODY_TIMEOUT", "SW_TIMEOUT"],
    [0, "ECONNRESET", "SW_CONNECTION_LOST"],
    [0, "UND_ERR_SOCKET", "SW_CONNECTION_LOST"],
    [0, "RequestAborted", "SW_CANCELLED"],
    [0, "CredentialUnavailable", "SW_CREDENTIAL_UNAVAILABLE"],
    [0, "InsecureConnection", "SW_SETTING_INVALID"],
    [0, "InvalidLink", "SW_RESPONSE_INVALID"],
    [401, "InvalidAuthenticationToken", "SW_ACCESS_DENIED"],
    [403, "AuthorizationFailed", "SW_ACCESS_DENIED"],
    [404, "ResourceNotFound", "SW_RESOURCE_NOT_FOUND"],
    [408, "RequestTimeout", "SW_TIMEOUT"],
    [409, "ConflictingDatabaseOperation", "SW_REQUEST_REJECTED"],
    [400, "InvalidParameter", "SW_REQUEST_REJECTED"],
    [429, "TooManyRequests", "SW_THROTTLED"],
    [500, "InternalServerError", "SW_SERVICE_ERROR"],
    [503, "ServiceUnavailable", "SW_SERVICE_ERROR"],
    [200, "InvalidResponse", "SW_RESPONSE_INVALID"],
  ] as const)("HTTP %s %s: %s", (status, code, expected) => {
    expect(callFailureCode(status, code)).toBe(expected);
  });

  it("an ApiError carries it, and keeps it when restated", () => {
    const e = new ApiError({ operation: "Op", status: 404, code: "ResourceNotFound", message: "gone", method: "GET", url: "http://x/y" });
    expect([e.swCode, swCodeOf(e), e.code]).toEqual(["SW_RESOURCE_NOT_FOUND", "SW_RESOURCE_NOT_FOUND", "ResourceNotFound"]);
    expect(e.restate({ message: "the database rg/s/db was not found" }).swCode).toBe("SW_RESOURCE_NOT_FOUND");
  });
});

describe("errorCodeOf", () => {
  it("takes the code an error carries; the system's errors by what they are; anything else is SW_INTERNAL", () => {
    expect(errorCodeOf(new StackwardenError("SW_LOCK_HELD", "held"))).toBe("SW_LOCK_HELD");
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: "ENOENT", syscall: "open", path: "x" });
    expect(errorCodeOf(enoent)).toBe("SW_IO_FAILED");
    expect(errorCodeOf(new Error("cannot keep the probe results in x: EACCES", { cause: enoent }))).toBe("SW_IO_FAILED");
    const taken = Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE", syscall: "listen" });
    expect(errorCodeOf(taken)).toBe("SW_ADDRESS_IN_USE");
    expect(errorCodeOf(new TypeError("x is not a function"))).toBe("SW_INTERNAL");
    expect(errorCodeOf("a string")).toBe("SW_INTERNAL");
    // A code that is not in the catalogue is not taken on trust.
    expect(swCodeOf({ swCode: "SW_NOT_A_CODE" })).toBeUndefined();
  });

  it("leadingCode: of several failures, the first that needs a person, else the first", () => {
    expect(leadingCode(["SW_THROTTLED", "SW_ACCESS_DENIED", "SW_RESOURCE_NOT_FOUND"])).toBe("SW_ACCESS_DENIED");
    expect(leadingCode(["SW_THROTTLED", "SW_SERVICE_ERROR"])).toBe("SW_THROTTLED");
    expect(leadingCode([])).toBeUndefined();
  });
});
