import { buildReport, type Session } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { SessionEvents } from './session-events.ts';

/** The plan webhook's queue, as `enqueuePlanEvent` of the plan-webhook module takes an event. */
export type EnqueuePlanEvent = (
  db: Kysely<Database>,
  event: { tenantId: number; planId: number; url: string; event: 'session.started' | 'session.ended'; payload: Record<string, unknown> },
) => Promise<unknown>;

export const isWebUrl = (text: string): boolean => {
  // Most plans have no webhook: an empty text is no URL, without the exception the parser would throw.
  if (text === '') return false;
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
};

/** The session as the webhook's `data` carries it (docs/webhooks.md, "Events"). */
function sessionData(session: Session): Record<string, unknown> {
  return {
    session_id: session.id,
    channel: session.channel,
    provider: session.provider,
    direction: session.direction,
    caller: session.caller,
    called: session.called,
    protocol: session.protocol,
    started_at: session.started_at,
    plan_version: session.plan_version,
  };
}

/**
 * Session hooks that queue the plan webhook's `session.started` and `session.ended`, in the turn's
 * transaction, for sessions whose plan (the version they started in) has a webhook. Test sessions
 * (the simulator) send nothing: a receiver such as a CRM would take them for real calls.
 *
 * A queue that refuses the event (`invalid_input`: a URL it does not take, a payload past its
 * size limit) refuses it before writing anything; that is logged and the turn goes on, so a plan
 * setting can never keep a call from ending.
 */
export function planWebhookEvents(enqueue: EnqueuePlanEvent, log: (message: string) => void = () => {}): SessionEvents {
  /** `payload` is made only for a plan whose webhook is a web URL (the report it carries costs its building). */
  async function send(trx: Kysely<Database>, session: Session, url: string, event: 'session.started' | 'session.ended', payload: () => Record<string, unknown>) {
    if (!isWebUrl(url)) return;
    try {
      await enqueue(trx, { tenantId: session.tenant_id, planId: session.plan_id, url, event, payload: payload() });
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'invalid_input')) throw error;
      log(`plan ${session.plan_id}: the ${event} event of session ${session.id} was refused by the webhook queue: ${JSON.stringify(error.details ?? [])}`);
    }
  }
  return {
    // Only a real session of a plan whose webhook is a web URL queues anything.
    needsTransaction: ({ is_test, webhook }) => !is_test && isWebUrl(webhook),
    async onStarted({ session, is_test, webhook }, trx) {
      if (!is_test) await send(trx, session, webhook, 'session.started', () => sessionData(session));
    },
    async onEnded({ session, is_test, webhook }, trx) {
      if (!is_test) await send(trx, session, webhook, 'session.ended', () => ({ ...sessionData(session), report: buildReport(session) }));
    },
  };
}
