import type { ReadReceipt } from "../../platform/arm/arm-read";
import { mapBounded } from "../../platform/bounded-map";
import type { Key } from "../../services/keyvault/types";
import { UNKNOWN } from "../../platform/unknown-value";
import type { FactOrigin } from "./model/compliance-facts";
import { defineFactKind } from "./fact-kind";
import { keyIdentity, protectorKeysOfStack, readKeyOnce } from "./key-custody-reads";
import type { ReadFailure } from "./read-failure";
import { RESOURCE_TYPES } from "./resource-types";

/**
 * The Key Vault key of a customer-managed TDE protector, as the key-custody rules see it (the
 * management plane's view: attributes and type, never key material). Times are seconds since 1970.
 */
export interface ProtectorKeyFacts extends FactOrigin {
  /** `vault/key[/version]`, lower-cased: how a protector finds its key's facts. */
  identity: string;
  vaultName: string;
  keyName: string;
  /** The version the protector names; absent for a versionless URI (the key's current version was read). */
  version?: string;
  /** The key's (version's) ARM id, when read. */
  id?: string;
  /** `attributes.enabled`; absent when not reported. */
  enabled?: boolean;
  /** `attributes.nbf`: not usable before (seconds since 1970). */
  notBefore?: number;
  /** `attributes.exp`: expires (seconds since 1970). */
  expires?: number;
  /** `RSA`, `RSA-HSM`, `EC`, `EC-HSM` (open). */
  kty?: string;
  keySize?: number;
  curveName?: string;
  /** The key could not be read: refused (403), gone (404), or its vault is not listed. */
  readFailure?: ReadFailure;
  /** Not known yet (a Pulumi preview of a key data source still to be read). */
  pending?: boolean;
}

declare module "./model/compliance-facts" {
  interface FactMap {
    protectorKeys: ProtectorKeyFacts;
  }
}

/**
 * The key of each customer-managed TDE protector of the stack's servers, once per distinct key
 * version (Keys_GetVersion; Keys_Get for a versionless URI), in the vault the subscription's listing
 * places it in. A key that cannot be read is a fact that says so.
 */
export const protectorKeys = defineFactKind<ProtectorKeyFacts>({
  key: "protectorKeys",
  title: "Key Vault key of each customer-managed TDE protector",
  gather: async (ctx) => {
    const sub = ctx.stack.subscriptionId;
    const keys = (await protectorKeysOfStack(ctx)).map((k) => k.key);
    return mapBounded(keys, ctx.concurrency, async (k) => {
      const r = await readKeyOnce(ctx, sub, k);
      const ref = { vaultName: k.vaultName, keyName: k.keyName, version: k.version };
      return protectorKeyFactsOf(ref, r.failure ? { failure: r.failure } : { key: r.read.value, receipt: r.read.receipt });
    });
  },
  fromResources: (resources, ctx) =>
    resources
      .filter((r) => r.type === RESOURCE_TYPES.vaultKey)
      .map((r) => {
        const p = r.props;
        const version = typeof p.version === "string" && p.version ? p.version : undefined;
        const ref = { vaultName: String(p.vault), keyName: String(p.key), version };
        const key = ctx.known(() => p.keyResource as Key | undefined);
        const failure = ctx.known(() => p.readError as ReadFailure | undefined);
        if (key === UNKNOWN || failure === UNKNOWN || (!key && !failure)) return { ...identityOf(ref), pending: true, origin: r.urn };
        return { ...protectorKeyFactsOf(ref, { key, failure }), origin: r.urn };
      }),
});

/** A key's facts from what its read gave: the key (with the read's receipt), or a failure. */
export function protectorKeyFactsOf(
  ref: { vaultName: string; keyName: string; version?: string },
  read: { key?: Key; failure?: ReadFailure; receipt?: ReadReceipt },
): ProtectorKeyFacts {
  const base = identityOf(ref);
  if (read.failure || !read.key) {
    return { ...base, readFailure: read.failure ?? { code: "NotRead", message: "the key was not read", readAt: new Date().toISOString() } };
  }
  const k = read.key;
  const p = k.properties ?? {};
  const a = p.attributes ?? {};
  return {
    ...base,
    ...(k.id ? { id: k.id } : {}),
    ...(typeof a.enabled === "boolean" ? { enabled: a.enabled } : {}),
    ...(typeof a.nbf === "number" ? { notBefore: a.nbf } : {}),
    ...(typeof a.exp === "number" ? { expires: a.exp } : {}),
    ...(typeof p.kty === "string" ? { kty: p.kty } : {}),
    ...(typeof p.keySize === "number" ? { keySize: p.keySize } : {}),
    ...(typeof p.curveName === "string" ? { curveName: p.curveName } : {}),
    ...(read.receipt ? { reads: [read.receipt] } : {}),
  };
}

function identityOf(ref: { vaultName: string; keyName: string; version?: string }) {
  return {
    identity: keyIdentity(ref.vaultName, ref.keyName, ref.version),
    vaultName: ref.vaultName.toLowerCase(),
    keyName: ref.keyName,
    ...(ref.version ? { version: ref.version } : {}),
  };
}
