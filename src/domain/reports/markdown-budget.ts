/**
 * Lines of Markdown that together stay within a number of characters once joined by newlines: a
 * report adds what fits, in order of importance, and counts what did not. Room can be set aside
 * for the lines that must come last (what was left out), which `force` then uses.
 */
export class MarkdownBudget {
  private readonly lines: string[] = [];
  private size = 0;
  private reserved = 0;

  constructor(private readonly limit: number) {}

  /** Characters still free for `add` (what is reserved not counted). */
  get left(): number {
    return this.limit - this.size - this.reserved;
  }

  /** Adds every line when all of them fit, none otherwise; returns whether they did. */
  add(...lines: string[]): boolean {
    if (this.costOf(lines) > this.left) return false;
    this.push(lines);
    return true;
  }

  /** Adds the lines whether they fit or not: for what the text cannot do without (its head, the count of what was left out), in reserved room. */
  force(...lines: string[]): void {
    this.push(lines);
  }

  /** Sets `chars` aside from what `add` may take, until `release`. */
  reserve(chars: number): void {
    this.reserved = chars;
  }

  /** Gives the reserved room back. */
  release(): void {
    this.reserved = 0;
  }

  /** The lines, joined. */
  text(): string {
    return this.lines.join("\n");
  }

  private costOf(lines: readonly string[]): number {
    let n = 0;
    for (const l of lines) n += l.length + 1;
    return this.lines.length === 0 ? n - 1 : n;
  }

  private push(lines: readonly string[]): void {
    this.size += this.costOf(lines);
    this.lines.push(...lines);
  }
}
