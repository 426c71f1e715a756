import { randomUUID } from "node:crypto";
import { keyVaultKeyUri } from "../../../services/keyvault/key-uri";
import type { KeyVaultKeyState, KeyVaultState, KeyVaultVaultState } from "../../services/keyvault/keyvault-state";
import type { GridEvent } from "./resource-events";

/** Key Vault publishes KeyNearExpiry this long before a key version's expiry (Azure Key Vault as Event Grid source). */
export const NEAR_EXPIRY_MS = 30 * 24 * 3600 * 1000;

const NEAR = "Microsoft.KeyVault.KeyNearExpiry";
const EXPIRED = "Microsoft.KeyVault.KeyExpired";

/**
 * Watches the emulator's keys against its clock and gives the Key Vault events their expiry
 * causes, each once per key version: `KeyNearExpiry` from 30 days before `exp`, `KeyExpired`
 * from `exp` (https://learn.microsoft.com/azure/event-grid/event-schema-key-vault). Each is on
 * its vault's system topic, subject the key's name, data `KeyVaultKeyNearExpiryEventData` /
 * `KeyVaultKeyExpiredEventData` of specs/eventgrid/Microsoft.KeyVault/stable/2018-01-01/KeyVault.json
 * (`NBF` and `EXP` as numbers, the spec's type; the published example, of a secret, shows them as
 * strings). What is already due when the emulator starts happened before any subscription existed
 * and is not published.
 */
export class KeyExpiryWatch {
  private readonly fired = new Set<string>();
  private primed = false;

  constructor(private readonly keyVaults: () => KeyVaultState | undefined) {}

  /** The events due at `now` that were not given yet. */
  due(now: number): GridEvent[] {
    const out: GridEvent[] = [];
    for (const v of this.keyVaults()?.vaults ?? []) {
      for (const k of v.keys) {
        if (k.exp === undefined) continue;
        const expMs = k.exp * 1000;
        if (now >= expMs - NEAR_EXPIRY_MS) this.once(out, v, k, NEAR, now);
        if (now >= expMs) this.once(out, v, k, EXPIRED, now);
      }
    }
    const first = !this.primed;
    this.primed = true;
    return first ? [] : out;
  }

  private once(out: GridEvent[], v: KeyVaultVaultState, k: KeyVaultKeyState, type: string, now: number): void {
    const key = `${type} ${v.name}/${k.name}/${k.version}`.toLowerCase();
    if (this.fired.has(key)) return;
    this.fired.add(key);
    out.push({
      id: randomUUID(),
      eventType: type,
      subject: k.name,
      topic: `/subscriptions/${v.subscriptionId}/resourceGroups/${v.resourceGroup}/providers/Microsoft.KeyVault/vaults/${v.name}`,
      eventTime: new Date(now).toISOString(),
      subscriptionId: v.subscriptionId,
      dataVersion: "1",
      data: {
        Id: keyVaultKeyUri(v.name, k.name, k.version),
        VaultName: v.name,
        ObjectType: "Key",
        ObjectName: k.name,
        Version: k.version,
        ...(k.nbf !== undefined ? { NBF: k.nbf } : {}),
        EXP: k.exp,
      },
    });
  }
}
