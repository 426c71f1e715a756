import { describe, expect, it } from "vitest";
import type { CommandIO } from "../../../src/interfaces/cli/command-io";
import { main } from "../../../src/interfaces/cli/main";
import { errorCodeOf } from "../../../src/platform/errors/error-code-of";
import { parseStateUrl, shownStateUrl } from "../../../src/platform/state/state-url";

/** What parseStateUrl throws for `value`, as the line a person would read. */
function refusal(value: string, where = "--state-url"): { code: string; message: string } {
  try {
    parseStateUrl(value, where);
  } catch (e) {
    return { code: errorCodeOf(e), message: (e as Error).message };
  }
  throw new Error(`${value} was accepted`);
}

describe("state URLs", () => {
  it("reads files, Azure's virtual-host URLs and Azurite's path style, keeping a SAS apart", () => {
    expect(parseStateUrl(undefined)).toEqual({ kind: "files" });
    expect(parseStateUrl("file:/srv/sw")).toEqual({ kind: "files", dir: "/srv/sw" });
    expect(parseStateUrl("https://acct1.blob.core.windows.net/state/team-a?sv=1&sig=abc")).toEqual({
      kind: "blob",
      serviceUrl: "https://acct1.blob.core.windows.net",
      account: "acct1",
      container: "state",
      prefix: "team-a/",
      sas: "sv=1&sig=abc",
    });
    expect(parseStateUrl("http://127.0.0.1:10000/devstoreaccount1/state")).toMatchObject({
      serviceUrl: "http://127.0.0.1:10000/devstoreaccount1",
      container: "state",
      prefix: "",
    });
  });

  // Credentials in the user-info are refused as before, and never shown: not the password, not the
  // user, whether the URL parses or not, and wherever the value came from.
  it.each([
    ["a parsed URL", "http://admin:SECRET@127.0.0.1:10000/devstoreaccount1/state"],
    ["a user alone", "https://admin@acct1.blob.core.windows.net/state"],
    ["a URL new URL rejects (a bad port)", "http://admin:SECRET@127.0.0.1:port/devstoreaccount1/state"],
    ["a password holding / ? and #", "http://admin:SE/CR?ET#x@127.0.0.1:10000/devstoreaccount1/state"],
    ["no scheme", "admin:SECRET@127.0.0.1:10000/devstoreaccount1/state"],
    ["another scheme", "ftp://admin:SECRET@host/state"],
    ["a SAS beside them", "http://admin:SECRET@127.0.0.1:10000/devstoreaccount1/state?sig=SIGNATURE"],
  ])("user-info is refused and never echoed: %s", (_, value) => {
    const { code, message } = refusal(value);
    expect(code).toBe("SW_STATE_URL_INVALID");
    expect(message).toMatch(/^--state-url: /);
    for (const secret of ["SECRET", "admin", "SE/CR", "SIGNATURE"]) expect(message).not.toContain(secret);
  });

  it("shows a URL without its user-info or its query, keeping what locates it", () => {
    expect(shownStateUrl("http://admin:SECRET@127.0.0.1:10000/devstoreaccount1/state")).toBe(
      "http://…@127.0.0.1:10000/devstoreaccount1/state",
    );
    expect(shownStateUrl("https://acct1.blob.core.windows.net/state?sv=1&sig=abc")).toBe("https://acct1.blob.core.windows.net/state?…");
    expect(shownStateUrl("nonsense")).toBe("nonsense");
  });

  it("names where the value came from, and refuses a malformed %-escape in one line", () => {
    expect(refusal("https://acct1.blob.core.windows.net/", "STACKWARDEN_STATE_URL").message).toMatch(
      /^STACKWARDEN_STATE_URL: https:\/\/acct1\.blob\.core\.windows\.net\/: it names no container/,
    );
    expect(refusal("http://127.0.0.1:10000/devstoreaccount1/state/%zz")).toMatchObject({ code: "SW_STATE_URL_INVALID" });
    expect(refusal("file:%zz")).toMatchObject({ code: "SW_STATE_URL_INVALID" });
  });

  it("the CLI's error line for --state-url with user-info holds neither the password nor the user", async () => {
    const lines: string[] = [];
    const io: CommandIO = {
      out: (l) => lines.push(l),
      err: (l) => lines.push(l),
      isTTY: false,
      cwd: process.cwd(),
      env: {},
      exitCode: 0,
    };
    const code = await main(["lock", "status", "--stack", "dev", "--state-url", "http://admin:SECRET@127.0.0.1:port/acct/state"], io);
    expect(code).toBe(1);
    expect(lines.join("\n")).toMatch(/SW_STATE_URL_INVALID: --state-url: http:\/\/…@127\.0\.0\.1:port\/acct\/state: it is not a URL/);
    expect(lines.join("\n")).not.toMatch(/SECRET|admin/);
  });
});
