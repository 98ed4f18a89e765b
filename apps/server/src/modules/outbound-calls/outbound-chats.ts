/**
 * Conversations the business starts on a messaging channel (docs/outbound.md, "WhatsApp"): nobody
 * rings, so the plan starts as a chat the moment the channel took the request, and its first turn is
 * the opening message. The outcome is `answer` once the channel sent it (Meta accepted it) and the
 * conversation goes on as any chat (the customer's reply is its next turn); `failed` with the
 * channel's code when it could not be sent, or Meta later reports it failed.
 */
import type { Session } from '@voxplan/engine';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { nowIso } from '../../lib/time.ts';
import { findCall, markAnswered, type OutboundCallRow } from './outbound-calls.repository.ts';
import type { OutboundDialer } from '../../context.ts';
import type { ChatOpening, OpeningStatus, OutboundOutcome } from './outbound-calls.types.ts';

export interface ChatOpenings {
  /** Starts the plan of a call stored `dialing` and sends its first turn; answers once the channel knows whether it went. */
  open(row: OutboundCallRow, dialer: OutboundDialer): Promise<void>;
  /** Whether the session's opening is still being sent here: its end then waits for the outcome (the session hook leaves the call alone). */
  isOpening(sessionId: string): boolean;
  openingStatus(sessionId: string, messageId: string, status: OpeningStatus): Promise<void>;
}

interface Deps {
  context: () => AppContext;
  tell: (outcome: OutboundOutcome) => void;
  outcomeOf: (row: OutboundCallRow, ended: boolean) => OutboundOutcome;
  /** Ends as `failed`, with its report, a call whose plan never started. */
  failUnstarted: (sessionId: string) => Promise<void>;
  /** Ends the call of a session that ended while its opening was sent, and queues its `status_url` outcome. */
  endCall: (sessionId: string, dialStatus: 'answer' | 'failed') => Promise<OutboundCallRow | undefined>;
  log: (message: string) => void;
}

export function createChatOpenings(deps: Deps): ChatOpenings {
  const opening = new Set<string>();

  /** The report of a session that ended before its opening failed: what the customer got is nothing. */
  async function reportUndelivered(sessionId: string, failure: { code: string; message: string }, planId: number): Promise<void> {
    const { db } = deps.context();
    await db
      .updateTable('call_reports')
      .set({ dial_status: 'failed', disposition: 'failed', failure: JSON.stringify({ ...failure, plan_id: planId, node_id: null }), updated_time: nowIso() })
      .where('session_id', '=', sessionId)
      .execute();
  }

  /** Ends the conversation as undelivered: its waiting session through the engine, or, ended already, its call and report. */
  async function undelivered(row: OutboundCallRow, failure: { code: ChatOpeningFailure['code']; message: string }, eventId: string): Promise<void> {
    const ctx = deps.context();
    await ctx.db.updateTable('outbound_calls').set({ dial_status: 'failed', updated_time: nowIso() }).where('session_id', '=', row.session_id).execute();
    const stored = await ctx.sessions.find(row.session_id);
    if (stored && stored.session.status !== 'ended') {
      // The session hook ends the call with the dial status set above, and tells its outcome.
      await ctx.sessions.handleTurn(row.session_id, eventId, { type: 'undelivered', code: failure.code, message: failure.message });
      return;
    }
    const ended = await deps.endCall(row.session_id, 'failed');
    await reportUndelivered(row.session_id, failure, row.plan_id);
    const call = ended ?? (await findCall(ctx.db, row.session_id));
    if (call) deps.tell({ ...deps.outcomeOf(call, true), dial_status: 'failed' });
  }

  async function open(row: OutboundCallRow, dialer: OutboundDialer): Promise<void> {
    const ctx = deps.context();
    const chat = dialer.chat!;
    const variables = JSON.parse(row.variables) as Record<string, string>;
    opening.add(row.session_id);
    let sent: ChatOpening;
    let session: Session | undefined;
    try {
      let first;
      try {
        first = await ctx.sessions.start({
          id: row.session_id,
          tenant_id: row.tenant_id,
          plan_id: row.plan_id,
          channel: 'chat',
          provider: row.provider as Session['provider'],
          direction: 'outbound',
          // A chat's caller is its customer and its called the number, whoever wrote first: the inbound
          // webhook finds the conversation by them, and the inbox and the report read them so.
          caller: row.called,
          called: row.caller,
          source_ip: null,
          variables,
        });
      } catch (error) {
        // The plan cannot start (the licence, a plan gone): the call ends as failed, with its report.
        if (error instanceof AppError && error.statusCode < 500) await deps.failUnstarted(row.session_id);
        throw error;
      }
      session = (await ctx.sessions.find(row.session_id))?.session;
      sent = await chat.open(ctx, { session_id: row.session_id, tenant_id: row.tenant_id, from: row.caller, to: row.called, machine_detection: false, ring_timeout_s: row.ring_timeout_s }, first);
    } finally {
      opening.delete(row.session_id);
    }
    if (!sent.ok) {
      deps.log(`outbound chat ${row.session_id}: its opening message was not sent (${sent.code}: ${sent.message})`);
      await undelivered(row, sent, 'undelivered');
      return;
    }
    const isFirst = await markAnswered(ctx.db, row.session_id, { answered_by: null, provider_call_id: sent.message_id }, nowIso());
    if (!isFirst) return;
    if (session?.status === 'ended') {
      // Its plan said what it had to and ended (a notice): the call ends with it, now that it went.
      const ended = await deps.endCall(row.session_id, 'answer');
      if (ended) deps.tell(deps.outcomeOf(ended, true));
      return;
    }
    const stored = await findCall(ctx.db, row.session_id);
    if (stored) deps.tell(deps.outcomeOf(stored, false));
  }

  async function openingStatus(sessionId: string, messageId: string, status: OpeningStatus): Promise<void> {
    const ctx = deps.context();
    const row = await findCall(ctx.db, sessionId);
    // Only the opening message tells the outcome; a later one's status is the conversation's own.
    if (!row || row.provider_call_id !== messageId || row.dial_status === 'failed') return;
    if (status.status === 'failed') {
      await undelivered(row, status, `undelivered:${messageId}`);
      return;
    }
    deps.tell({ ...deps.outcomeOf(row, row.state === 'ended'), settled: true });
  }

  return { open, isOpening: (sessionId) => opening.has(sessionId), openingStatus };
}

type ChatOpeningFailure = Extract<ChatOpening, { ok: false }>;
