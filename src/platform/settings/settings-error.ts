import { StackwardenError } from "../errors/stackwarden-error";

/** Bad configuration from the environment: the message names the variable (or flag) (`SW_SETTING_INVALID`). */
export class SettingsError extends StackwardenError {
  constructor(message: string) {
    super("SW_SETTING_INVALID", message);
    this.name = "SettingsError";
  }
}

/** Throws a SettingsError naming `where` unless `value` is an absolute http(s) URL. */
export function checkUrl(value: string, where: string): void {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new SettingsError(`${where}: "${value}" is not a valid URL; expected e.g. http://127.0.0.1:4000`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new SettingsError(`${where}: "${u.protocol}" URLs are not supported; use http or https`);
  }
}
