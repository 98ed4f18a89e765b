/**
 * Meta's pace per number (docs/channels-whatsapp.md, "Pace"): a number sends at most
 * `WHATSAPP_MESSAGES_PER_SECOND` messages a second (Meta's default throughput, 80,
 * https://developers.facebook.com/docs/whatsapp/cloud-api/overview#throughput). Each send takes the
 * number's next slot, 1/rate seconds after the previous one, and waits for it. The slots are this
 * instance's: instances sending for one number together may go over it, and Meta's 130429 answer
 * (retried once, whatsapp-channel.ts) is what holds them back then.
 */

export interface Pacer {
  /** Waits for the number's next slot; answers how long it waited, in milliseconds. */
  take(numberId: number, perSecond: number): Promise<number>;
}

export function createPacer(clock: { now: () => number; sleep: (ms: number) => Promise<void> } = { now: Date.now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) }): Pacer {
  const next = new Map<number, number>();
  return {
    async take(numberId, perSecond) {
      const now = clock.now();
      const slot = Math.max(now, next.get(numberId) ?? 0);
      next.set(numberId, slot + 1000 / Math.max(perSecond, 0.001));
      // Slots long past are forgotten, so the map holds only numbers sending now.
      if (next.size > 10_000) for (const [id, at] of next) if (at < now) next.delete(id);
      const wait = slot - now;
      if (wait > 0) await clock.sleep(wait);
      return wait;
    },
  };
}

/** The instance's pacer, shared by every send of the process. */
export const instancePacer = createPacer();
