/**
 * The ids of the records seen lately, up to `capacity` (the oldest forgotten first): what
 * deduplicates a record delivered twice (the Activity Log's overlapping windows, Event Grid's
 * at-least-once retries, both sources reporting one write) in bounded memory. A record older than
 * the ids kept would be acted on again: harmless, since re-reads are idempotent. An id may keep a
 * value beside it (what the first record of a write said of it).
 */
export class SeenIds<V = never> {
  private readonly ids = new Map<string, V | undefined>();

  constructor(private readonly capacity = 100_000) {
    if (!(capacity >= 1)) throw new Error(`SeenIds needs a capacity of at least 1, got ${capacity}`);
  }

  /** Records `id` as seen (with `value`); false when it was seen already (its value is then left as it was). */
  add(id: string, value?: V): boolean {
    if (this.ids.has(id)) return false;
    this.ids.set(id, value);
    // A Map iterates in insertion order: the first is the oldest.
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.keys().next().value!);
    return true;
  }

  /** The value kept with a seen id, if any. */
  valueOf(id: string): V | undefined {
    return this.ids.get(id);
  }

  /** Replaces the value kept with a seen id (an id not seen is left unseen). */
  replace(id: string, value: V): void {
    if (this.ids.has(id)) this.ids.set(id, value);
  }

  get size(): number {
    return this.ids.size;
  }
}
