import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import type { LocalService, ServiceContext } from "../../kit/local-service";
import { armPage, resourceGroupNotFound, resourceNotFound } from "../../kit/arm-conventions";
import { publishedOperation } from "../../kit/published-operations";
import { KEYVAULT_NAMESPACE } from "../../../services/keyvault/types";
import { keyVaultId, vaultKeyId } from "../../../services/keyvault/vault-ids";
import { keyVaultInitialState, readDeniedTo, type KeyVaultKeyState, type KeyVaultState, type KeyVaultVaultState } from "./keyvault-state";
import { keyVaultSeedSchema, type KeyVaultSeed } from "./seed-schema";
import { keyResource, vaultResource } from "./vault-resources";
import { mountManagedHsms } from "./managed-hsm-routes";
import { authorizationFailed, callerOf, type Caller } from "./read-access";

/**
 * The Key Vault management plane (Microsoft.KeyVault), read-only: vaults (Vaults_Get,
 * Vaults_ListBySubscription, Vaults_ListByResourceGroup) and their keys (Keys_List, Keys_Get,
 * Keys_GetVersion), and Managed HSMs and their keys (managed-hsm-routes.ts), at every api-version
 * Azure publishes for each (specs/api-versions/Microsoft.KeyVault.json; keys from 2019-09-01, when
 * the management plane gained them), each answered in its version's shape. A vault or key the seed
 * marks `readDenied` answers 403 AuthorizationFailed to the principals it names, as Resource Manager
 * does without a role that grants `…/read`, and is left out of lists, as Resource Manager filters them.
 */
export const keyVaultLocal: LocalService<KeyVaultState, KeyVaultSeed> = {
  name: "keyvault",
  seedSchema: keyVaultSeedSchema,
  initialState: (seed) => keyVaultInitialState(seed),

  mount(ctx) {
    let index: VaultIndex | undefined;
    const lookup = (): VaultIndex => {
      const s = ctx.state();
      if (!index || index.state !== s) index = new VaultIndex(s);
      return index;
    };
    const h = new KeyVaultHandlers(ctx, lookup);
    const rgVaults = `/subscriptions/:subscriptionId/resourceGroups/:resourceGroupName/providers/${KEYVAULT_NAMESPACE}/vaults`;
    const vault = `${rgVaults}/:vaultName`;
    const key = `${vault}/keys/:keyName`;
    const op = (operationId: string) => publishedOperation("Microsoft.KeyVault", operationId);
    ctx.arm("GET", `/subscriptions/:subscriptionId/providers/${KEYVAULT_NAMESPACE}/vaults`, op("Vaults_ListBySubscription"), (req) =>
      h.listBySubscription(req),
    );
    ctx.arm("GET", rgVaults, op("Vaults_ListByResourceGroup"), (req) => h.listByResourceGroup(req));
    ctx.arm("GET", vault, op("Vaults_Get"), (req) => h.getVault(req));
    ctx.arm("GET", `${vault}/keys`, op("Keys_List"), (req) => h.listKeys(req));
    ctx.arm("GET", key, op("Keys_Get"), (req) => h.getKey(req));
    ctx.arm("GET", `${key}/versions/:keyVersion`, op("Keys_GetVersion"), (req) => h.getKeyVersion(req));
    mountManagedHsms(ctx);
  },
};

/** Case-insensitive lookups over the state, built once per state object (the estate never changes at run time). */
class VaultIndex {
  readonly groups = new Set<string>();
  readonly vaults = new Map<string, KeyVaultVaultState>();

  constructor(readonly state: KeyVaultState) {
    for (const v of state.vaults) {
      this.groups.add(groupKey(v.subscriptionId, v.resourceGroup));
      this.vaults.set(vaultKey(v.subscriptionId, v.resourceGroup, v.name), v);
    }
  }
}

function groupKey(sub: string, rg: string): string {
  return `${sub.toLowerCase()}\u0000${rg.toLowerCase()}`;
}
function vaultKey(sub: string, rg: string, name: string): string {
  return `${groupKey(sub, rg)}\u0000${name.toLowerCase()}`;
}

type Found<T> = { ok: true; value: T } | { ok: false; reply: EmulatorReply };

class KeyVaultHandlers {
  constructor(
    private readonly ctx: ServiceContext<KeyVaultState>,
    private readonly lookup: () => VaultIndex,
  ) {}

  /** Vaults_ListBySubscription: the vaults of the subscription the caller may read. */
  listBySubscription(req: EmulatorRequest): EmulatorReply {
    const sub = req.params.subscriptionId.toLowerCase();
    const caller = this.caller(req);
    const vaults = this.lookup().state.vaults.filter(
      (v) => v.subscriptionId.toLowerCase() === sub && !readDeniedTo(v.readDenied, caller.objectId),
    );
    return armPage(
      req,
      vaults.map((v) => vaultResource(v)),
      this.ctx.settings.pageSize,
    );
  }

  /** Vaults_ListByResourceGroup */
  listByResourceGroup(req: EmulatorRequest): EmulatorReply {
    const { subscriptionId, resourceGroupName } = req.params;
    if (!this.lookup().groups.has(groupKey(subscriptionId, resourceGroupName))) return resourceGroupNotFound(resourceGroupName);
    const caller = this.caller(req);
    const vaults = this.lookup().state.vaults.filter(
      (v) =>
        groupKey(v.subscriptionId, v.resourceGroup) === groupKey(subscriptionId, resourceGroupName) &&
        !readDeniedTo(v.readDenied, caller.objectId),
    );
    return armPage(
      req,
      vaults.map((v) => vaultResource(v)),
      this.ctx.settings.pageSize,
    );
  }

  /** Vaults_Get */
  getVault(req: EmulatorRequest): EmulatorReply {
    const f = this.vault(req, "Microsoft.KeyVault/vaults/read");
    if (!f.ok) return f.reply;
    return { status: 200, body: vaultResource(f.value) };
  }

  /** Keys_List: the keys of the vault the caller may read. */
  listKeys(req: EmulatorRequest): EmulatorReply {
    const f = this.vault(req, "Microsoft.KeyVault/vaults/keys/read");
    if (!f.ok) return f.reply;
    const caller = this.caller(req);
    const keys = f.value.keys.filter((k) => !readDeniedTo(k.readDenied, caller.objectId));
    return armPage(
      req,
      keys.map((k) => keyResource(f.value, k)),
      this.ctx.settings.pageSize,
    );
  }

  /** Keys_Get: the key as its current version. */
  getKey(req: EmulatorRequest): EmulatorReply {
    const f = this.key(req);
    if (!f.ok) return f.reply;
    return { status: 200, body: keyResource(f.value.vault, f.value.key) };
  }

  /** Keys_GetVersion: the one version each seeded key has (its `version`). */
  getKeyVersion(req: EmulatorRequest): EmulatorReply {
    const f = this.key(req);
    if (!f.ok) return f.reply;
    const { vault, key } = f.value;
    const asked = req.params.keyVersion;
    if (asked.toLowerCase() !== key.version) return notFound(req, `${vault.name}/keys/${key.name}/versions/${asked}`);
    return { status: 200, body: keyResource(vault, key, true) };
  }

  /** The vault the path names, if it exists and the caller may `action` over it. */
  private vault(req: EmulatorRequest, action: string): Found<KeyVaultVaultState> {
    const { subscriptionId, resourceGroupName, vaultName } = req.params;
    const idx = this.lookup();
    const v = idx.vaults.get(vaultKey(subscriptionId, resourceGroupName, vaultName));
    if (!v) {
      if (!idx.groups.has(groupKey(subscriptionId, resourceGroupName)))
        return { ok: false, reply: resourceGroupNotFound(resourceGroupName) };
      return { ok: false, reply: notFound(req, vaultName) };
    }
    const scope =
      action.includes("/keys/") && req.params.keyName ? vaultKeyId({ ...refOf(v), key: req.params.keyName }) : keyVaultId(refOf(v));
    if (readDeniedTo(v.readDenied, this.caller(req).objectId))
      return { ok: false, reply: authorizationFailed(this.caller(req), action, scope) };
    return { ok: true, value: v };
  }

  private key(req: EmulatorRequest): Found<{ vault: KeyVaultVaultState; key: KeyVaultKeyState }> {
    const f = this.vault(req, "Microsoft.KeyVault/vaults/keys/read");
    if (!f.ok) return f;
    const lower = req.params.keyName.toLowerCase();
    const key = f.value.keys.find((k) => k.name.toLowerCase() === lower);
    if (!key) return { ok: false, reply: notFound(req, `${f.value.name}/keys/${req.params.keyName}`) };
    if (readDeniedTo(key.readDenied, this.caller(req).objectId)) {
      return {
        ok: false,
        reply: authorizationFailed(
          this.caller(req),
          "Microsoft.KeyVault/vaults/keys/read",
          vaultKeyId({ ...refOf(f.value), key: key.name }),
        ),
      };
    }
    return { ok: true, value: { vault: f.value, key } };
  }

  private caller(req: EmulatorRequest): Caller {
    return callerOf(this.ctx, req);
  }
}

function refOf(v: KeyVaultVaultState) {
  return { subscriptionId: v.subscriptionId, resourceGroup: v.resourceGroup, vault: v.name };
}

/** ARM's 404 for `Microsoft.KeyVault/vaults/<path>`. */
function notFound(req: EmulatorRequest, path: string): EmulatorReply {
  return resourceNotFound("Microsoft.KeyVault/vaults", path, req.params.resourceGroupName);
}
