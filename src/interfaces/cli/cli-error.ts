import { ApiError } from "../../platform/http/api-error";
import { YamlInputError } from "../../platform/yaml/yaml-input-error";
import { SettingsError } from "../../platform/settings/endpoints";
import { CredentialUnavailableError } from "../../platform/auth/credential-errors";
import { scrubTokens } from "../../platform/http/redaction";
import { UsageError } from "../../platform/usage-error";

export { UsageError };

/** Errors whose message is written for users; anything else is a bug and gets its class name. */
const USER_FACING = [UsageError, ApiError, YamlInputError, SettingsError, CredentialUnavailableError];

/** One line for stderr, never a stack trace, with tokens scrubbed. */
export function describeError(e: unknown): string {
  if (USER_FACING.some((c) => e instanceof c)) return oneLine((e as Error).message);
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    return oneLine(`${e.message}${code && !e.message.includes(code) ? ` (${code})` : ""}`);
  }
  return oneLine(String(e));
}

function oneLine(s: string): string {
  return scrubTokens(s.replace(/\s*\n\s*/g, " ").trim());
}
