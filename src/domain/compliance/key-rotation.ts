import type { FactMap } from "../facts/model/compliance-facts";
import { dayOf } from "./key-custody-facts";

type ProtectorFacts = FactMap["tdeProtectors"];
type ProtectorKeyFacts = FactMap["protectorKeys"];

/**
 * Rotation of a customer-managed TDE protector key, as `tde-key-validity` judges it (issue 33): whether
 * the server follows its key's newest version by itself (the protector's `autoRotationEnabled`), how
 * old the version in use is (its `attributes.created`), and the key's rotation policy in words. Pure.
 */

/** The rotation settings of `tde-key-validity`. */
export interface KeyRotationSettings {
  /** A server that does not rotate its key by itself fails. */
  requireAutoRotation: boolean;
  /** Days (0: off): a version older than that fails unless the server rotates automatically. */
  maxKeyAgeDays: number;
}

const DAY_S = 86_400;

/**
 * What the rotation settings find wrong, in words: a server that does not rotate its key by itself
 * (`requireAutoRotation`), and a version older than `maxKeyAgeDays` that nothing rotates. A fact Azure
 * did not report is named as such, never taken as a pass.
 */
export function rotationProblems(
  p: Pick<ProtectorFacts, "autoRotationEnabled">,
  key: Pick<ProtectorKeyFacts, "created">,
  settings: KeyRotationSettings,
  now: number,
): string[] {
  const out: string[] = [];
  const auto = p.autoRotationEnabled === true;
  if (settings.requireAutoRotation && !auto) out.push(`its server does not rotate it automatically (${autoRotationText(p)})`);
  if (settings.maxKeyAgeDays > 0 && !auto) {
    const age = ageDays(key, now);
    if (age === undefined)
      out.push("its creation time is not reported, so its age cannot be judged, and its server does not rotate it automatically");
    else if (age > settings.maxKeyAgeDays)
      out.push(
        `it was created on ${dayOf(key.created!)}, ${age} days ago, more than ${settings.maxKeyAgeDays}, and its server does not rotate it automatically (${autoRotationText(p)})`,
      );
  }
  return out;
}

function autoRotationText(p: Pick<ProtectorFacts, "autoRotationEnabled">): string {
  return p.autoRotationEnabled === undefined ? "autoRotationEnabled is not reported" : `autoRotationEnabled is ${p.autoRotationEnabled}`;
}

/** Whole days since the version was created; undefined when Azure did not say. */
export function ageDays(key: Pick<ProtectorKeyFacts, "created">, now: number): number | undefined {
  return key.created === undefined ? undefined : Math.floor((now / 1000 - key.created) / DAY_S);
}

/** A rotation policy in words, one line a part: `rotate P60D before expiry`, `new versions expire after P2Y`. */
export function rotationPolicyText(policy: NonNullable<ProtectorKeyFacts["rotationPolicy"]>): string[] {
  const actions = policy.lifetimeActions.map((a) => {
    const when = [
      ...(a.timeAfterCreate ? [`${a.timeAfterCreate} after creation`] : []),
      ...(a.timeBeforeExpiry ? [`${a.timeBeforeExpiry} before expiry`] : []),
    ];
    return `${a.action}${when.length ? ` ${when.join(" or ")}` : ""}`;
  });
  return [...actions, ...(policy.expiryTime ? [`new versions expire after ${policy.expiryTime}`] : [])];
}
