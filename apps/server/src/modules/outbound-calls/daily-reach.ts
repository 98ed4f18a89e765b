/**
 * A WhatsApp number's daily reach (docs/outbound.md, "Daily reach"): Meta's messaging limit caps
 * the unique customers a number reaches outside their customer window in a rolling 24 hours
 * (`numbers.whatsapp_daily_limit`: 250, 2,000, 10,000, 100,000, null unlimited). Counted here: the
 * customers its templates went to in the last 24 hours (not those Meta reported failed), and the
 * outbound chats still being opened, so that calls placed at once do not overshoot the limit.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { DailyReach } from './outbound-calls.types.ts';

export const REACH_WINDOW_MS = 24 * 3600 * 1000;

export async function dailyReach(db: Kysely<Database>, numberId: number, now = new Date()): Promise<DailyReach> {
  const number = await db.selectFrom('numbers').select('whatsapp_daily_limit').where('id', '=', numberId).executeTakeFirst();
  const since = new Date(now.getTime() - REACH_WINDOW_MS).toISOString();
  // One customer is one reach however many messages: the union keeps each contact once, at its first time.
  const reached = sql<{ contact: string; at: string }>`(
    select '+' || contact as contact, sent_time as at from whatsapp_messages
      where number_id = ${numberId} and direction = 'outbound' and template_name is not null and status <> 'failed' and sent_time >= ${since}
    union all
    select called as contact, created_time as at from outbound_calls
      where number_id = ${numberId} and state in ('queued', 'dialing') and created_time >= ${since})`;
  const row = await db
    .selectFrom(reached.as('r'))
    .select((eb) => [sql<string | number>`count(distinct ${eb.ref('r.contact')})`.as('reached'), eb.fn.min<string | null>('r.at').as('oldest')])
    .executeTakeFirst();
  const oldest = row?.oldest ?? null;
  return {
    reached: Number(row?.reached ?? 0),
    limit: number?.whatsapp_daily_limit ?? null,
    frees_at: oldest === null ? null : new Date(Date.parse(oldest) + REACH_WINDOW_MS).toISOString(),
  };
}
