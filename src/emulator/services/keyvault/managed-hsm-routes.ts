import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import type { ServiceContext } from "../../kit/local-service";
import { armPage, resourceGroupNotFound, resourceNotFound } from "../../kit/arm-conventions";
import { publishedOperation } from "../../kit/published-operations";
import { managedHsmId, managedHsmKeyId } from "../../../services/keyvault/managed-hsm-ids";
import { KEYVAULT_NAMESPACE } from "../../../services/keyvault/types";
import { readDeniedTo, type KeyVaultHsmState, type KeyVaultKeyState, type KeyVaultState } from "./keyvault-state";
import { managedHsmKeyResource, managedHsmResource } from "./managed-hsm-resources";
import { authorizationFailed, callerOf } from "./read-access";

/**
 * Managed HSM on the Key Vault management plane (Microsoft.KeyVault/managedHSMs), read-only, from
 * managedHsm.json and keysManagedHsm.json: the pools (ManagedHsms_Get, ManagedHsms_ListBySubscription,
 * ManagedHsms_ListByResourceGroup) and their keys (ManagedHsmKeys_List, ManagedHsmKeys_Get,
 * ManagedHsmKeys_GetVersion, ManagedHsmKeys_ListVersions: each seeded key has one version). An HSM
 * or key the seed marks `readDenied` answers 403 AuthorizationFailed to the principals it names and
 * is left out of lists, as for vaults.
 */
export function mountManagedHsms(ctx: ServiceContext<KeyVaultState>): void {
  const h = new ManagedHsmHandlers(ctx);
  const rgHsms = `/subscriptions/:subscriptionId/resourceGroups/:resourceGroupName/providers/${KEYVAULT_NAMESPACE}/managedHSMs`;
  const hsm = `${rgHsms}/:name`;
  const key = `${hsm}/keys/:keyName`;
  const op = (operationId: string) => publishedOperation("Microsoft.KeyVault", operationId);
  ctx.arm(
    "GET",
    `/subscriptions/:subscriptionId/providers/${KEYVAULT_NAMESPACE}/managedHSMs`,
    op("ManagedHsms_ListBySubscription"),
    (req) => h.list(req, (x) => same(x.subscriptionId, req.params.subscriptionId)),
  );
  ctx.arm("GET", rgHsms, op("ManagedHsms_ListByResourceGroup"), (req) => h.listByResourceGroup(req));
  ctx.arm("GET", hsm, op("ManagedHsms_Get"), (req) => h.get(req));
  ctx.arm("GET", `${hsm}/keys`, op("ManagedHsmKeys_List"), (req) => h.listKeys(req));
  ctx.arm("GET", key, op("ManagedHsmKeys_Get"), (req) => h.getKey(req, false));
  ctx.arm("GET", `${key}/versions`, op("ManagedHsmKeys_ListVersions"), (req) => h.listKeyVersions(req));
  ctx.arm("GET", `${key}/versions/:keyVersion`, op("ManagedHsmKeys_GetVersion"), (req) => h.getKey(req, true));
}

type Found<T> = { ok: true; value: T } | { ok: false; reply: EmulatorReply };

function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

class ManagedHsmHandlers {
  constructor(private readonly ctx: ServiceContext<KeyVaultState>) {}

  private hsms(): KeyVaultHsmState[] {
    return this.ctx.state().managedHsms ?? [];
  }

  /** ManagedHsms_ListBySubscription (and by resource group): the HSMs the caller may read. */
  list(req: EmulatorRequest, where: (h: KeyVaultHsmState) => boolean): EmulatorReply {
    const caller = callerOf(this.ctx, req);
    const hsms = this.hsms().filter((h) => where(h) && !readDeniedTo(h.readDenied, caller.objectId));
    return armPage(
      req,
      hsms.map((h) => managedHsmResource(h)),
      this.ctx.settings.pageSize,
    );
  }

  /** ManagedHsms_ListByResourceGroup: a group the estate does not know is ARM's ResourceGroupNotFound. */
  listByResourceGroup(req: EmulatorRequest): EmulatorReply {
    const { subscriptionId, resourceGroupName } = req.params;
    const inGroup = (h: KeyVaultHsmState) => same(h.subscriptionId, subscriptionId) && same(h.resourceGroup, resourceGroupName);
    if (!this.knowsGroup(subscriptionId, resourceGroupName)) return resourceGroupNotFound(resourceGroupName);
    return this.list(req, inGroup);
  }

  /** ManagedHsms_Get */
  get(req: EmulatorRequest): EmulatorReply {
    const f = this.hsm(req, "Microsoft.KeyVault/managedHSMs/read");
    return f.ok ? { status: 200, body: managedHsmResource(f.value) } : f.reply;
  }

  /** ManagedHsmKeys_List: the keys of the HSM the caller may read, each as its current version. */
  listKeys(req: EmulatorRequest): EmulatorReply {
    const f = this.hsm(req, "Microsoft.KeyVault/managedHSMs/keys/read");
    if (!f.ok) return f.reply;
    const caller = callerOf(this.ctx, req);
    const keys = f.value.keys.filter((k) => !readDeniedTo(k.readDenied, caller.objectId));
    return armPage(
      req,
      keys.map((k) => managedHsmKeyResource(f.value, k, false)),
      this.ctx.settings.pageSize,
    );
  }

  /** ManagedHsmKeys_Get (`asVersion` false) or ManagedHsmKeys_GetVersion (the one version each seeded key has). */
  getKey(req: EmulatorRequest, asVersion: boolean): EmulatorReply {
    const f = this.key(req);
    if (!f.ok) return f.reply;
    const { hsm, key } = f.value;
    if (asVersion && req.params.keyVersion.toLowerCase() !== key.version)
      return notFound(req, `${hsm.name}/keys/${key.name}/versions/${req.params.keyVersion}`);
    return { status: 200, body: managedHsmKeyResource(hsm, key, asVersion) };
  }

  /** ManagedHsmKeys_ListVersions: the key's one version. */
  listKeyVersions(req: EmulatorRequest): EmulatorReply {
    const f = this.key(req);
    if (!f.ok) return f.reply;
    return armPage(req, [managedHsmKeyResource(f.value.hsm, f.value.key, true)], this.ctx.settings.pageSize);
  }

  private knowsGroup(subscriptionId: string, resourceGroup: string): boolean {
    const state = this.ctx.state();
    return [...state.vaults, ...this.hsms()].some((x) => same(x.subscriptionId, subscriptionId) && same(x.resourceGroup, resourceGroup));
  }

  /** The HSM the path names, if it exists and the caller may `action` over it. */
  private hsm(req: EmulatorRequest, action: string): Found<KeyVaultHsmState> {
    const { subscriptionId, resourceGroupName, name } = req.params;
    const h = this.hsms().find(
      (x) => same(x.subscriptionId, subscriptionId) && same(x.resourceGroup, resourceGroupName) && same(x.name, name),
    );
    if (!h) {
      if (!this.knowsGroup(subscriptionId, resourceGroupName)) return { ok: false, reply: resourceGroupNotFound(resourceGroupName) };
      return { ok: false, reply: notFound(req, name) };
    }
    const ref = { subscriptionId: h.subscriptionId, resourceGroup: h.resourceGroup, hsm: h.name };
    const scope = req.params.keyName ? managedHsmKeyId({ ...ref, key: req.params.keyName }) : managedHsmId(ref);
    const caller = callerOf(this.ctx, req);
    if (readDeniedTo(h.readDenied, caller.objectId)) return { ok: false, reply: authorizationFailed(caller, action, scope) };
    return { ok: true, value: h };
  }

  private key(req: EmulatorRequest): Found<{ hsm: KeyVaultHsmState; key: KeyVaultKeyState }> {
    const f = this.hsm(req, "Microsoft.KeyVault/managedHSMs/keys/read");
    if (!f.ok) return f;
    const key = f.value.keys.find((k) => same(k.name, req.params.keyName));
    if (!key) return { ok: false, reply: notFound(req, `${f.value.name}/keys/${req.params.keyName}`) };
    const caller = callerOf(this.ctx, req);
    if (readDeniedTo(key.readDenied, caller.objectId)) {
      const ref = { subscriptionId: f.value.subscriptionId, resourceGroup: f.value.resourceGroup, hsm: f.value.name, key: key.name };
      return { ok: false, reply: authorizationFailed(caller, "Microsoft.KeyVault/managedHSMs/keys/read", managedHsmKeyId(ref)) };
    }
    return { ok: true, value: { hsm: f.value, key } };
  }
}

/** ARM's 404 for `Microsoft.KeyVault/managedHSMs/<path>`. */
function notFound(req: EmulatorRequest, path: string): EmulatorReply {
  return resourceNotFound("Microsoft.KeyVault/managedHSMs", path, req.params.resourceGroupName);
}
