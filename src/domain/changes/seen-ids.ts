/**
 * The ids of the records seen lately, up to `capacity` (the oldest forgotten first): what
 * deduplicates a record delivered twice (the Activity Log's overlapping windows, Event Grid's
 * at-least-once retries, both sources reporting one write) in bounded memory. A record older than
 * the ids kept would be acted on again: harmless, since re-reads are idempotent.
 */
export class SeenIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 100_000) {
    if (!(capacity >= 1)) throw new Error(`SeenIds needs a capacity of at least 1, got ${capacity}`);
  }

  /** Records `id` as seen; false when it was seen already. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    // A Set iterates in insertion order: the first is the oldest.
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value!);
    return true;
  }

  get size(): number {
    return this.ids.size;
  }
}
