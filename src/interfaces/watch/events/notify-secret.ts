/** The variable that holds the webhook signing secret. */
export const NOTIFY_SECRET_ENV = "STACKWARDEN_NOTIFY_SECRET";

/** Standard Webhooks' secret form: `whsec_` and the base64 of 24 to 64 random bytes. */
const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/**
 * Checks a signing secret in Standard Webhooks' form (`whsec_` + base64 of 24-64 bytes) and returns
 * it unchanged; throws a one-line Error that says what is wrong, never what the value is.
 */
export function parseNotifySecret(value: string | undefined, name = NOTIFY_SECRET_ENV): string {
  if (value === undefined || value.trim() === "")
    throw new Error(`${name} is not set: webhooks are signed with it. Make one with: echo "whsec_$(openssl rand -base64 32)"`);
  const m = WHSEC.exec(value.trim());
  if (!m)
    throw new Error(
      `${name} is not a Standard Webhooks secret: expected whsec_ followed by base64 (e.g. whsec_$(openssl rand -base64 32))`,
    );
  const bytes = Buffer.from(m[1], "base64").length;
  if (bytes < 24 || bytes > 64) throw new Error(`${name} holds ${bytes} bytes after whsec_: Standard Webhooks secrets are 24 to 64 bytes`);
  return value.trim();
}
