import { isIP } from "node:net";

/**
 * Where credentials may travel. Over https, anywhere (the transport never follows a link to
 * another origin). Over plain http, only to this machine: a loopback address (the emulator), so a
 * bearer token or an API key never crosses a network in clear text. That is the rule Azure's
 * bearerTokenAuthenticationPolicy applies (it refuses non-TLS URLs), with the loopback exception
 * a local emulator needs.
 *
 * The Instance Metadata Service is the one http endpoint by design: it lives at the link-local
 * 169.254.169.254, answered by the host (the traffic never leaves it), and a request to it carries
 * no credential, only `Metadata: true`. Its answers carry tokens, though, so IMDS over http is
 * accepted at loopback and link-local addresses only (`tokenSourceProblem`).
 */

/** Whether a host (as `URL.hostname` gives it) is this machine: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || /^::ffff:127\./.test(h) || /^0*:0*:0*:0*:0*:0*:0*:0*1$/.test(h);
  return false;
}

/** Whether a host is link-local: 169.254.0.0/16 (IMDS's 169.254.169.254) or fe80::/10. */
export function isLinkLocalHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (isIP(h) === 4) return h.startsWith("169.254.");
  if (isIP(h) === 6) return /^fe[89ab][0-9a-f]:/.test(h);
  return false;
}

/**
 * Why credentials must not be sent to `url`, in one sentence naming `what` (`a bearer token`,
 * `an API key`), or undefined when they may: https, or http to a loopback address.
 */
export function credentialOriginProblem(url: URL | string, what: string): string | undefined {
  const u = typeof url === "string" ? new URL(url) : url;
  if (u.protocol !== "http:" || isLoopbackHost(u.hostname)) return undefined;
  return `refusing to send ${what} over plain http to ${u.origin}: credentials go over http only to a loopback address (the local emulator); use https`;
}

/**
 * Why tokens must not be fetched from an http token source (IMDS) at `url`, or undefined when
 * they may: https, or http to a loopback or link-local address.
 */
export function tokenSourceProblem(url: URL | string): string | undefined {
  const u = typeof url === "string" ? new URL(url) : url;
  if (u.protocol !== "http:" || isLoopbackHost(u.hostname) || isLinkLocalHost(u.hostname)) return undefined;
  return `refusing to fetch tokens over plain http from ${u.origin}: IMDS answers with access tokens, so over http it must be a loopback or link-local address (such as 169.254.169.254); use https`;
}
