import { InvalidArgumentError } from "commander";
import { SHA256_HEX } from "../../domain/audit/audit-chain";

/** A commander parser for an integer within bounds. */
export function intOption(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(`expected an integer, got "${value}"`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected ${min}..${max}, got ${n}`);
    return n;
  };
}

/** A commander parser for a rate in [0, 1]. */
export function rateOption(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError(`expected a rate between 0 and 1, got "${value}"`);
  return n;
}

/** A commander parser restricted to a set of choices (commander's `.choices` with a friendlier message). */
export function choiceOption<T extends string>(choices: readonly T[]) {
  return (value: string): T => {
    if (!(choices as readonly string[]).includes(value))
      throw new InvalidArgumentError(`expected one of ${choices.join(", ")}, got "${value}"`);
    return value as T;
  };
}

/** A commander parser for a comma-separated list of choices (`--show passed,not-applicable`), each once, in the order given. */
export function choiceListOption<T extends string>(choices: readonly T[]) {
  return (value: string): T[] => {
    const items = value.split(",").map((v) => v.trim());
    const wrong = items.find((v) => !(choices as readonly string[]).includes(v));
    if (wrong !== undefined) throw new InvalidArgumentError(`expected a comma-separated list of ${choices.join(", ")}, got "${wrong}"`);
    return [...new Set(items as T[])];
  };
}

/** A commander parser for a finite number above 0. */
export function positiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a number above 0, got "${value}"`);
  return n;
}

/** `--expect-head`: the full 64-hex sha-256 of an audit entry, as `audit verify` prints the head (any case). */
export function sha256Option(value: string): string {
  const hash = value.trim().toLowerCase();
  if (!SHA256_HEX.test(hash))
    throw new InvalidArgumentError(`expected the 64-hex sha256 that audit verify prints as the head, got "${value}"`);
  return hash;
}
