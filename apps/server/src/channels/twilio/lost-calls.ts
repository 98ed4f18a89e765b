/**
 * Twilio calls whose end never arrived (docs/sessions.md, "Retention"): a status callback lost on
 * the way leaves the call's session waiting, holding a licence slot until the end timeout (240
 * minutes by default). A call silent past LOST_CALL_CHECK_MS is asked of Twilio (the Call
 * resource's status); one Twilio says has ended is closed `expired` as of its end there, at once.
 * A call still in progress (a long transfer), or one Twilio cannot be asked about, is left to the
 * end timeout.
 */
import type { Kysely } from 'kysely';
import twilio from 'twilio';
import type { LostCallsContext } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { twilioHttpClient } from '../messaging.ts';
import { tenantIntegrations } from '../../modules/tenants/integrations.routes.ts';

/** Silence after which a call is asked about: no gather waits this long, only a transfer or a lost end. */
export const LOST_CALL_CHECK_MS = 5 * 60_000;
/** Calls one pass asks about at most; the rest wait for the next pass. */
const CHECK_BATCH = 100;
/** The Call resource's statuses of a call that is over. */
const endedStatuses = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

function silentTwilioCalls(db: Kysely<Database>, before: string) {
  return db
    .selectFrom('sessions')
    .select(['id', 'tenant_id', 'last_activity_time'])
    .where('status', '=', 'waiting')
    .where('channel', '=', 'voice')
    .where('provider', '=', 'twilio')
    .where('is_test', '=', 0)
    .where('last_activity_time', '<', before)
    .orderBy('last_activity_time')
    .limit(CHECK_BATCH)
    .execute();
}

/** Closes the silent calls Twilio says have ended; answers their ids. */
export async function endLostTwilioCalls(ctx: LostCallsContext, now: Date, log: (message: string) => void = () => {}): Promise<string[]> {
  const silent = await silentTwilioCalls(ctx.db, new Date(now.getTime() - LOST_CALL_CHECK_MS).toISOString());
  if (silent.length === 0) return [];
  const httpClient = twilioHttpClient(ctx.config.twilioApiUrl);
  const ended: string[] = [];
  for (const call of silent) {
    const { twilio_sid: accountSid, twilio_token: token } = await tenantIntegrations(ctx, call.tenant_id);
    if (!accountSid || !token) continue;
    let status: string;
    let endTime: Date | null | undefined;
    try {
      ({ status, endTime } = await twilio(accountSid, token, { httpClient }).calls(call.id).fetch());
    } catch (error) {
      log(`Twilio could not be asked about call ${call.id}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    if (!endedStatuses.has(status)) continue;
    const at = endTime instanceof Date && !Number.isNaN(endTime.getTime()) && endTime.toISOString() > call.last_activity_time ? endTime.toISOString() : call.last_activity_time;
    try {
      // The end timeout's event and id: a session is expired once, whoever gets there first.
      const outcome = await ctx.sessions.handleTurn(call.id, 'expire', { type: 'expire', at }, { tenantId: call.tenant_id });
      if (!outcome.duplicate && outcome.status === 'ended') ended.push(call.id);
    } catch (error) {
      log(`lost call ${call.id} could not be closed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return ended;
}
