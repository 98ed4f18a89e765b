/**
 * A turn of a stored session (docs/sessions.md): it reads the stored session, runs the engine
 * outside any transaction, then writes the result only if the stored revision is still the one it
 * read, together with the event's id. When another turn got there first, it reads again and runs
 * the event on what that turn left; the same event id delivered twice answers the stored outcome.
 */
import { type EngineEvent, handleEvent } from '@voxplan/engine';
import { uniqueViolationColumns } from '../../db/constraint-errors.ts';
import { conflict, notFound } from '../../errors.ts';
import { liveEventsOf, publishLiveEvents } from './live-events.ts';
import { checkId, type RunTurn, type RuntimeCore, storedStatus, type TurnFollowUps, type TurnRun } from './runtime-core.ts';
import type { TurnOptions, TurnOutcome } from './session-runtime.ts';
import { findSessionForEvent, parseSession, type SessionTurnChanges, storeEnd, storeTurn } from './sessions.repository.ts';

export function createTurns(core: RuntimeCore, followUps: Pick<TurnFollowUps, 'followHandOff' | 'followChatEnd'>) {
  const { ctx, db, clock, kept, writes, maxAttempts, sessionEnded, inTurn, portsFor, timeoutOf, webhookOf, outcomeOf, finishTurn, hooksNeedTransaction } = core;
  const { followHandOff, followChatEnd } = followUps;

  /**
   * One event, run until it is stored over the revision it read. `guard` is asked before every
   * run: false ends the attempt with null (the sweeper's timeout no longer applies).
   */
  async function runTurn(
    sessionId: string,
    eventId: string,
    event: EngineEvent,
    turn: TurnRun,
  ): Promise<TurnOutcome | null> {
    // PostgreSQL: the read cache's ping goes out beside the session's read, once for the turn's
    // kept reads (the signature's, the plan's...), which then answer at once (ReadCache.catchUp).
    const catchingUp = ctx.readCache.catchUp();
    for (let attempt = 1; ; attempt++) {
      const found = await findSessionForEvent(db, sessionId, eventId);
      if (!found || (turn.tenantId !== undefined && found.row.tenant_id !== turn.tenantId)) throw notFound('session_not_found');
      const { row } = found;
      const caughtUp = catchingUp && (await catchingUp);
      // A session's tenant never changes: asked on the first read only.
      if (attempt === 1) await ctx.readCache.atOnce(caughtUp, () => turn.authorize?.(row.tenant_id));
      if (found.stored) return { ...found.stored, session_id: sessionId, duplicate: true, report: null };
      if (turn.guard && !turn.guard(row)) return null;
      const before = kept.take(row) ?? parseSession(row);
      const isTest = row.is_test === 1;
      const draftPlanId = row.is_draft === 1 ? row.plan_id : null;
      const result = await ctx.readCache.atOnce(caughtUp, () => handleEvent(before, event, portsFor(draftPlanId, turn.observer)));
      const now = clock.now();
      const nowText = now.toISOString();
      const outcome = outcomeOf(before, result, row.revision + 1);
      const session = result.session;
      const turnChanges: SessionTurnChanges | null = result.ignored
        ? null
        : {
            revision: outcome.revision,
            status: storedStatus(session),
            state: JSON.stringify(session),
            last_activity_time: nowText,
            timeout_time: await ctx.readCache.atOnce(caughtUp, () => timeoutOf(session, draftPlanId, now)),
            updated_time: nowText,
            ended_time: session.ended_at,
          };
      const changes = turnChanges ?? { revision: outcome.revision, updated_time: nowText };
      const isHooked = (before.status !== 'ended' && session.status === 'ended') || (turn.unprompted === true && outcome.actions.length > 0);
      const webhook = isHooked ? await ctx.readCache.atOnce(caughtUp, () => webhookOf(session, draftPlanId)) : '';
      const stored = { id: sessionId, revision: row.revision, changes, eventId, outcome };
      const report = result.report && !result.ignored ? result.report : null;
      // A turn with neither report nor hooks writes its session and event alone: on PostgreSQL one statement, its own transaction.
      const isAlone = ctx.dialect === 'postgres' && !isHooked && !report;
      // So does the turn that ends a session, with its report and rollups, when no hook writes.
      const isAloneEnd = ctx.dialect === 'postgres' && before.status !== 'ended' && !hooksNeedTransaction({ is_test: isTest, webhook, session });
      let committed: TurnOutcome | null;
      try {
        if (isAlone) {
          committed = (await storeTurn(db, ctx.dialect, stored)) ? { ...outcome, session_id: sessionId, duplicate: false, report: null } : null;
        } else if (isAloneEnd && report && turnChanges) {
          const storedReport = await storeEnd(db, { ...stored, changes: turnChanges }, report, isTest, nowText);
          committed = storedReport && (await finishTurn(db, { before, result, isTest, webhook, unprompted: turn.unprompted === true }, outcome, sessionId, nowText, storedReport));
        } else {
          committed = await writes.run(async (trx) => {
            if (!(await storeTurn(trx, ctx.dialect, stored))) return null;
            return finishTurn(trx, { before, result, isTest, webhook, unprompted: turn.unprompted === true }, outcome, sessionId, nowText);
          });
        }
      } catch (error) {
        // The same event id stored meanwhile by a turn this one did not see: read again.
        if (uniqueViolationColumns(error) === undefined) throw error;
        committed = null;
      }
      if (committed) {
        // An ignored event moved the revision only: the state stored is still `before`.
        kept.keep(result.ignored ? before : session, changes.revision, changes.updated_time, before.status === 'ended');
        if (!result.ignored) {
          publishLiveEvents(ctx.bus, () => liveEventsOf(before, session, outcome, isTest));
          followHandOff(session, outcome, isTest);
          followChatEnd(session);
          if (before.status !== 'ended' && session.status === 'ended') sessionEnded?.(session);
        }
        return committed;
      }
      turn.observer?.discarded();
      if (attempt >= maxAttempts) throw conflict('session_busy');
    }
  }

  async function handleTurn(sessionId: string, eventId: string, event: EngineEvent, options: TurnOptions = {}): Promise<TurnOutcome> {
    checkId(sessionId, 'session_id');
    checkId(eventId, 'event_id');
    const outcome = await inTurn(sessionId, () => runTurn(sessionId, eventId, event, options));
    // Without a guard a turn always ends stored or thrown.
    return outcome!;
  }

  return { runTurn: runTurn satisfies RunTurn, handleTurn };
}
