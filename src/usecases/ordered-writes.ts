/**
 * Writes to the state store in the order they were asked for, one after another, without making
 * the caller wait: the status board and the event outbox share one, so an event a status change
 * enqueues is stored before the status that caused it (a kill between the two makes the next
 * process derive the same event again, with the same id). A failed write is reported, not thrown:
 * the watcher goes on, and the next write of the same document carries the state again.
 */
export class OrderedWrites {
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly warn: (line: string) => void = () => {},
    /** The fence before each write (a watcher replica's lease): a write it refuses is dropped and reported. */
    private readonly fence?: () => Promise<void>,
  ) {}

  /** Queues a write after every one queued before it. */
  run(what: string, write: () => Promise<unknown>): void {
    this.tail = this.tail.then(async () => {
      try {
        await this.fence?.();
        await write();
      } catch (e) {
        this.warn(`${what}: ${(e as Error).message}`);
      }
    });
  }

  /** Resolves while writes may go on (the fence holds), throws once they may not. */
  async fenced(): Promise<void> {
    await this.fence?.();
  }

  /** Resolves once every write queued so far has ended. */
  flushed(): Promise<void> {
    return this.tail;
  }
}
