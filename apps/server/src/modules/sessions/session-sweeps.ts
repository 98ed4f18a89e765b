/**
 * The end of sessions nobody ends (docs/sessions.md): the chat sweeper's pass over chats idle past
 * their plan's timeout, and the expiry of voice sessions whose provider never told their end.
 */
import type { EngineEvent } from '@voxplan/engine';
import type { RunTurn, RuntimeCore, TurnFollowUps } from './runtime-core.ts';
import { claimTimeout, dueChatSessions, staleVoiceSessions } from './sessions.repository.ts';

/** Batches of stale sessions one expiry pass takes at most (after a long stop there may be many); the rest wait for the next pass. */
const MAX_EXPIRY_BATCHES = 50;

export function createSweeps(core: RuntimeCore, runTurn: RunTurn, followUps: Pick<TurnFollowUps, 'deliverUnprompted'>) {
  const { db, options, clock, log, sweepBatch, claimLeaseMs, inTurn } = core;
  const { deliverUnprompted } = followUps;

  /**
   * One event run on each session a sweep found, only while the session is still at the revision
   * it was found at: a turn stored since (a message, another instance's sweep) wins, and the
   * event's id, stored with the turn, keeps it from running twice. `claim` may take a session for
   * this instance first, or pass it by (false). One session's failure does not stop the others.
   * Answers the ids of the sessions the event ended.
   */
  async function sweepEach(
    what: string,
    found: ReadonlyArray<{ id: string; revision: number }>,
    turnOf: (candidate: { id: string; revision: number }) => { eventId: string; event: EngineEvent; claim?: () => Promise<boolean> },
  ): Promise<string[]> {
    const ended: string[] = [];
    for (const candidate of found) {
      const { eventId, event, claim } = turnOf(candidate);
      try {
        if (claim && !(await claim())) continue;
        const outcome = await inTurn(candidate.id, () =>
          runTurn(candidate.id, eventId, event, { guard: (row) => row.revision === candidate.revision, unprompted: true }),
        );
        if (!outcome || outcome.duplicate) continue;
        if (outcome.actions.length > 0) await deliverUnprompted(candidate.id, eventId, outcome);
        if (outcome.status === 'ended') ended.push(candidate.id);
      } catch (error) {
        // Tried again on the next pass (a chat's claim runs out first).
        log(`${what} of session ${candidate.id} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return ended;
  }

  async function sweepTimeouts(): Promise<string[]> {
    if (options.sweepParked) {
      await options.sweepParked().catch((error: unknown) => log(`conversation sweep failed: ${error instanceof Error ? error.message : String(error)}`));
    }
    const now = clock.now();
    const due = await dueChatSessions(db, now.toISOString(), sweepBatch);
    const leaseUntil = new Date(now.getTime() + claimLeaseMs).toISOString();
    return sweepEach('chat timeout', due, (candidate) => {
      const timeoutTime = due.find((row) => row.id === candidate.id)!.timeout_time!;
      return {
        eventId: `timeout:${timeoutTime}`,
        event: { type: 'timeout' },
        // A message that arrives after the claim moves the revision on; the timeout then no longer applies.
        claim: () => claimTimeout(db, candidate.id, candidate.revision, timeoutTime, leaseUntil),
      };
    });
  }

  async function expireStale(inactiveSince: string): Promise<string[]> {
    const ended: string[] = [];
    for (let pass = 0; pass < MAX_EXPIRY_BATCHES; pass++) {
      const stale = await staleVoiceSessions(db, inactiveSince, sweepBatch);
      const byId = new Map(stale.map((row) => [row.id, row]));
      ended.push(
        ...(await sweepEach('expiry', stale, (candidate) => ({
          // One expiry per session: the same id from a racing instance answers the stored turn.
          eventId: 'expire',
          event: { type: 'expire', at: byId.get(candidate.id)!.last_activity_time },
        }))),
      );
      if (stale.length < sweepBatch) break;
    }
    return ended;
  }

  return { sweepTimeouts, expireStale };
}
