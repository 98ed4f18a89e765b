/**
 * Turns no channel request waits on (docs/handoff.md): a chat's hand-off once the turn that reached
 * a chat destination is stored, and the receiver's answer run as the next turn; the conversation of
 * a chat that ended while waiting for a person closed; a parked chat resumed. Their actions go to the
 * conversation through the provider's chat sender (chat-channels.ts).
 */
import type { DialStatus, EngineEvent, Session } from '@voxplan/engine';
import { deliverChatTurn } from './chat-channels.ts';
import type { DialAction } from './chat-handoff.ts';
import type { RunTurn, RuntimeCore, TurnFollowUps } from './runtime-core.ts';
import type { TurnOutcome } from './session-runtime.ts';
import { findSession, parseSession, type StoredOutcome, type TurnRow } from './sessions.repository.ts';

export interface FollowUps extends TurnFollowUps {
  resumeParked(sessionId: string, eventId: string, event: EngineEvent): Promise<void>;
  /** Starts no more hand-offs and waits for those under way. */
  close(): Promise<void>;
}

/** `runTurn` is session-turn.ts', which follows its stored turns with these: it is asked for when a follow-up runs. */
export function createFollowUps(core: RuntimeCore, runTurn: RunTurn): FollowUps {
  const { ctx, db, options, log, handOff, inTurn } = core;
  /** Hand-offs under way in this instance, with the turns that follow them. */
  const handOffs = new Set<Promise<void>>();
  let isClosing = false;

  /**
   * A chat turn that reached a chat destination hands the conversation off once it is stored. The
   * user's channel answers that turn meanwhile (its replies, then the wait); the receiver's answer
   * becomes the next turn, `handoff:<revision>`, sent to the conversation through the provider's
   * chat sender. It runs only while the session still waits at that block: a hangup or a sweep
   * that came first stands.
   */
  function followHandOff(session: Session, outcome: StoredOutcome, isTest: boolean): void {
    if ((!handOff && !options.queueHandOff) || isClosing || session.channel !== 'chat' || session.status === 'ended') return;
    const dial = outcome.actions.findLast((action): action is DialAction => action.type === 'dial');
    if (!dial) return;
    const sessionId = session.id;
    const eventId = `handoff:${outcome.revision}`;
    const pathLength = session.path.length;
    const stillWaiting = (row: TurnRow) => row.status === 'waiting' && parseSession(row).path.length === pathLength;
    const task = (async () => {
      let status: DialStatus;
      // A queue has no URL: its agents answer in the console (docs/conversations.md).
      if (dial.uri === '' && options.queueHandOff) {
        const exit = await options.queueHandOff({ session, dial, revision: outcome.revision, is_test: isTest });
        if (exit === null) return;
        status = exit;
      } else {
        if (!handOff) return;
        const desk = options.deskHandOff;
        const reply = desk?.reply(sessionId, outcome.revision);
        const result = await handOff.send({ session, dial, is_test: isTest, delivery_id: `${sessionId}:${outcome.revision}`, ...(reply && { reply }) });
        if (result.error) log(`hand-off of session ${sessionId} to destination ${dial.destination_id}: ${result.status} after ${result.attempts} attempts (${result.error})`);
        if (result.status === 'accepted' && desk && reply && !isClosing) {
          await desk.accepted({ session, dial, revision: outcome.revision, token: reply.token });
          return;
        }
        status = result.status === 'accepted' ? 'answer' : result.status;
      }
      // A server that stops leaves the chat waiting: another turn, or the sweeper, moves it on.
      if (isClosing) return;
      const turn = await inTurn(sessionId, () => runTurn(sessionId, eventId, { type: 'dial_result', status }, { guard: stillWaiting, unprompted: true }));
      if (turn && !turn.duplicate) await deliverUnprompted(sessionId, eventId, turn);
    })().catch((error: unknown) => log(`hand-off of session ${sessionId} failed: ${error instanceof Error ? error.message : String(error)}`));
    handOffs.add(task);
    void task.finally(() => handOffs.delete(task));
  }

  /** A chat that ended while waiting for a person leaves no conversation in the queue (docs/handoff.md, "Outcomes"). */
  function followChatEnd(session: Session): void {
    if (!options.chatEnded || session.channel !== 'chat' || session.status !== 'ended' || session.dial_status !== 'cancel') return;
    const task = options
      .chatEnded(session.id)
      .then(() => undefined)
      .catch((error: unknown) => log(`closing the conversation of session ${session.id} failed: ${error instanceof Error ? error.message : String(error)}`));
    handOffs.add(task);
    void task.finally(() => handOffs.delete(task));
  }

  /** A stored turn nobody waits on goes to the conversation through its provider's chat sender. */
  async function deliverUnprompted(sessionId: string, eventId: string, outcome: TurnOutcome): Promise<void> {
    const row = await findSession(db, sessionId);
    if (!row) return;
    await deliverChatTurn(ctx, { session: parseSession(row), is_test: row.is_test === 1, outcome, event_id: eventId }, log);
  }

  async function resumeParked(sessionId: string, eventId: string, event: EngineEvent): Promise<void> {
    const turn = await inTurn(sessionId, () => runTurn(sessionId, eventId, event, { guard: (row) => row.status === 'waiting', unprompted: true }));
    if (turn && !turn.duplicate) await deliverUnprompted(sessionId, eventId, turn);
  }

  return {
    followHandOff,
    followChatEnd,
    deliverUnprompted,
    resumeParked,
    async close() {
      isClosing = true;
      await handOff?.stop();
      await Promise.all([...handOffs]);
    },
  };
}
