import { HttpTransport } from "../../platform/http/transport";

/**
 * A user principal name as `emulator change --as` takes it: `name@domain.tld`, no spaces, one `@`
 * (what the emulator's user tokens carry as `upn`, and Azure's sign-in names look like).
 */
export const USER_PRINCIPAL_NAME = /^[^@\s]+@[^@\s]+\.[^@\s.]+$/;

/**
 * A user's Resource Manager token from the running emulator's own user-token facility (`POST
 * <url>/_emulator/user-token {"upn"}`), signed with the estate's key: a write sent with it is
 * recorded as that person's (the Activity Log's `caller` and `claims`, Event Grid's `data.claims`).
 * The token is handed back to the caller only, never printed.
 */
export async function emulatorUserToken(url: string, upn: string, signal?: AbortSignal): Promise<string> {
  const transport = new HttpTransport({ baseUrl: url, service: "emulator", retry: { maxAttempts: 2 } });
  const answer = await transport.json<{ access_token?: unknown }>({
    operation: "Emulator_UserToken",
    method: "POST",
    path: "/_emulator/user-token",
    json: { upn },
    signal,
  });
  if (typeof answer.access_token !== "string")
    throw new Error(`the emulator at ${url} answered its user-token route without an access_token`);
  return answer.access_token;
}
