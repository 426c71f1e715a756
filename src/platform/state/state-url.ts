import { StackwardenError } from "../errors/stackwarden-error";

/** Where the state lives, as STACKWARDEN_STATE_URL or --state-url says. */
export type StateLocation =
  | {
      kind: "files";
      /** The directory under which locks/, audit/, probes/, status/ and events/ live; undefined: the defaults. */ dir?: string;
    }
  | {
      kind: "blob";
      /** The account's blob endpoint, without query: `https://ACCOUNT.blob.core.windows.net` or `http://127.0.0.1:10000/devstoreaccount1`. */
      serviceUrl: string;
      account: string;
      container: string;
      /** Names inside the container start with it (`team-a/`), or "". */
      prefix: string;
      /** A SAS given in the URL's query (a secret: never printed). */
      sas?: string;
    };

/** The variable and the flag that choose the state store. */
export const STATE_URL_VAR = "STACKWARDEN_STATE_URL";
/** The account key for a path-style URL (Azurite, or a real account by key). */
export const STATE_KEY_VAR = "STACKWARDEN_STATE_ACCOUNT_KEY";

const CONTAINER = /^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/;

/**
 * Reads a state URL: unset or `file:DIR` (local files, the default), Azure's
 * `https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX][?SAS]`, or a path-style
 * `http(s)://HOST:PORT/ACCOUNT/CONTAINER[/PREFIX]` (Azurite). A URL that is none of these is one
 * line naming where it came from and what is expected (SW_STATE_URL_INVALID); a SAS and user-info are never shown.
 */
export function parseStateUrl(value: string | undefined, where = STATE_URL_VAR): StateLocation {
  const raw = value?.trim();
  if (!raw) return { kind: "files" };
  if (raw.startsWith("file:")) {
    const dir = decoded(raw.slice("file:".length).replace(/^\/\/(?=\/)/, ""));
    if (dir === undefined) throw invalid(where, "file:…", "it holds a malformed %-escape");
    if (!dir) throw invalid(where, "file:", "file: needs a directory (file:.stackwarden, file:/srv/stackwarden)");
    return { kind: "files", dir };
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw invalid(where, shownStateUrl(raw), "it is not a URL");
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw invalid(where, shownStateUrl(raw), "its scheme is neither https nor http");
  if (u.username || u.password)
    throw invalid(
      where,
      shownStateUrl(raw),
      "credentials do not go in the URL (use a SAS, the credential chain or STACKWARDEN_STATE_ACCOUNT_KEY)",
    );
  const sas = u.search ? u.search.slice(1) : undefined;
  const parts = u.pathname.split("/").filter(Boolean).map(decoded);
  if (parts.includes(undefined)) throw invalid(where, shownStateUrl(raw), "its path holds a malformed %-escape");
  const virtualHost = /^([a-z0-9]{3,24})\.blob\.core\.(windows\.net|chinacloudapi\.cn|usgovcloudapi\.net)$/.exec(u.hostname);
  let account: string;
  let serviceUrl: string;
  if (virtualHost) {
    account = virtualHost[1];
    serviceUrl = `${u.protocol}//${u.host}`;
  } else {
    account = parts.shift() ?? "";
    if (!account) throw invalid(where, shownStateUrl(raw), "a path-style URL names the account first: http://HOST:PORT/ACCOUNT/CONTAINER");
    serviceUrl = `${u.protocol}//${u.host}/${account}`;
  }
  const container = parts.shift() ?? "";
  if (!CONTAINER.test(container))
    throw invalid(
      where,
      shownStateUrl(raw),
      container ? `"${container}" is not a container name (3-63 lower-case letters, digits and single hyphens)` : "it names no container",
    );
  const prefix = parts.length ? `${parts.join("/")}/` : "";
  return { kind: "blob", serviceUrl, account, container, prefix, ...(sas ? { sas } : {}) };
}

/** A state location for people: the container's URL and prefix, never a SAS. */
export function describeStateLocation(loc: StateLocation): string {
  if (loc.kind === "files") return `files under ${loc.dir ?? ".stackwarden"}`;
  return `${loc.serviceUrl}/${loc.container}/${loc.prefix}`;
}

/**
 * A state URL as a message may show it: never its user-info (`user:password@`) nor its query (a
 * SAS), whether or not it parses as a URL. Everything from the start of the authority to the last
 * `@` is hidden (a password may hold `/`, `?` or `#` unencoded, so no earlier delimiter is
 * trusted), then everything from the first `?` or `#` on.
 */
export function shownStateUrl(raw: string): string {
  let out = raw;
  const at = out.lastIndexOf("@");
  if (at >= 0) {
    // The scheme stays only when `//` follows it: in `admin:secret@host` the "scheme" is a user name.
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(out);
    out = `${scheme ? scheme[0] : ""}…@${out.slice(at + 1)}`;
  }
  const cut = out.search(/[?#]/);
  return cut < 0 ? out : `${out.slice(0, cut)}${out[cut]}…`;
}

/** A %-decoded value; undefined when an escape is malformed (`%zz`). */
function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

function invalid(where: string, value: string, why: string): StackwardenError {
  return new StackwardenError(
    "SW_STATE_URL_INVALID",
    `${where}: ${value}: ${why}; expected file:DIR, https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX] or http://HOST:PORT/ACCOUNT/CONTAINER[/PREFIX]`,
  );
}
