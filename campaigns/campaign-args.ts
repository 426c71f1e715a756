/** Reads `--name value` integer flags of a campaign script; refuses anything else in one line. */
export function campaignArgs<K extends string>(argv: string[], defaults: Record<K, number>, usage: string): Record<K, number> {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)$/.exec(argv[i]);
    const key = m?.[1] as K | undefined;
    const value = Number(argv[i + 1]);
    if (!key || !(key in defaults) || !Number.isInteger(value) || value < 0) {
      process.stderr.write(`${usage}\n`);
      process.exit(1);
    }
    out[key] = value;
    i += 1;
  }
  return out;
}
