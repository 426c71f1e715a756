import { credentialOriginProblem } from "../credential-origins";
import type { Stage } from "../pipeline";
import type { TransportContext } from "../transport-context";

export const API_KEY_STAGE = "apiKey";

/**
 * API keys in request headers (`X-APISETU-APIKEY` with its client id) or in the query string
 * (`api_key`). The key values are registered as secrets, so error text that echoes them is scrubbed;
 * the redactor hides them in URLs and headers because no service declares them safe. A key is
 * never sent over plain http except to a loopback address (see credential-origins.ts).
 */
export function apiKeyStage(
  ctx: TransportContext,
  key: { headers?: Record<string, string>; query?: { name: string; value: string } },
): Stage {
  // A client id that travels with a key is scrubbed like the key: together they are the credential.
  for (const value of Object.values(key.headers ?? {})) ctx.secrets.add(value);
  if (key.query) ctx.secrets.add(key.query.value);
  const param = key.query ? `${encodeURIComponent(key.query.name)}=${encodeURIComponent(key.query.value)}` : undefined;
  const insecure = credentialOriginProblem(ctx.origin, "an API key");
  return {
    name: API_KEY_STAGE,
    send(req, next) {
      if (insecure) return Promise.reject(ctx.failure(req.spec, "InsecureConnection", insecure));
      return next({
        ...req,
        headers: key.headers ? { ...req.headers, ...key.headers } : req.headers,
        path: param ? req.path + (req.path.includes("?") ? "&" : "?") + param : req.path,
      });
    },
  };
}
