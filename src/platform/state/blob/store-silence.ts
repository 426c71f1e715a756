/**
 * What the store's answers were like lately, for one container client: whether a try that got no
 * answer in time may be tried again. A stray stall (a keep-alive socket a NAT forgot, one slow
 * front end) is worth one more try on a new connection; a store that answers nothing at all (a
 * partition, a hung proxy, a paused Azurite) is not: every further try would only spend another
 * deadline before the same refusal. So a try that went unanswered is tried again unless the store
 * was already unanswered when that try began; any answer at all (even an error status) ends that.
 */
export class StoreSilence {
  private lastAnswerAt = Number.NEGATIVE_INFINITY;
  private unansweredSince: number | undefined;

  /** A try got an answer (any status). */
  answered(at = Date.now()): void {
    this.lastAnswerAt = at;
    this.unansweredSince = undefined;
  }

  /**
   * A try begun at `startedAt` got no answer before its deadline. True when it may be tried again:
   * the store answered another try meanwhile, or this is the first try to find it silent.
   */
  mayRetryUnanswered(startedAt: number): boolean {
    if (this.lastAnswerAt >= startedAt) return true;
    const silentBefore = this.unansweredSince !== undefined && this.unansweredSince <= startedAt;
    this.unansweredSince = Math.min(this.unansweredSince ?? startedAt, startedAt);
    return !silentBefore;
  }
}
