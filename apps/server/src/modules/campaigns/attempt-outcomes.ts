/**
 * What an attempt's end does to its contact (docs/campaigns.md, "Retries"): the outcome is kept as
 * the contact's last, and an outcome with retries left puts the contact back in the queue after
 * its delay; otherwise the contact is done. Every change is conditional on the contact still
 * being in progress, so an outcome told twice (a provider's retry, the recovery pass beside the
 * listener) is applied once.
 */
import { type CampaignOutcome, campaignOutcomes, type CampaignRetries, campaignRetryOutcomes, type CampaignRetryOutcome } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/** The campaign's word for how a call ended: an answer by a machine is `machine`. */
export function outcomeOf(dialStatus: string | null, answeredBy: string | null): CampaignOutcome {
  if (dialStatus === 'answer') return answeredBy === 'machine' ? 'machine' : 'answer';
  return (campaignOutcomes as readonly string[]).includes(dialStatus ?? '') ? (dialStatus as CampaignOutcome) : 'failed';
}

const isRetryOutcome = (outcome: CampaignOutcome): outcome is CampaignRetryOutcome => (campaignRetryOutcomes as readonly string[]).includes(outcome);

/** How the contact row changes: done, or back to pending with the retry counted and its time set. */
export function afterOutcome(
  outcome: CampaignOutcome,
  retries: CampaignRetries,
  used: Partial<Record<CampaignRetryOutcome, number>>,
  nowMs: number,
): { state: 'pending' | 'done'; next_attempt_time: string | null; retries_used: string } {
  if (isRetryOutcome(outcome)) {
    const rule = retries[outcome];
    const count = used[outcome] ?? 0;
    if (count < rule.attempts) {
      return {
        state: 'pending',
        next_attempt_time: new Date(nowMs + rule.delay_min * 60_000).toISOString(),
        retries_used: JSON.stringify({ ...used, [outcome]: count + 1 }),
      };
    }
  }
  return { state: 'done', next_attempt_time: null, retries_used: JSON.stringify(used) };
}

/**
 * Applies an attempt's outcome to the contact in progress of `campaignId` with `phone` (a number is
 * never in progress twice in a campaign). Answers whether it changed anything.
 */
export async function applyOutcome(
  db: Kysely<Database>,
  target: { campaignId: number; phone: string; sessionId: string | null },
  outcome: CampaignOutcome,
  nowMs: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const contact = await trx
      .selectFrom('campaign_contacts as c')
      .innerJoin('campaigns as k', 'k.id', 'c.campaign_id')
      .select(['c.id', 'c.retries_used', 'c.last_session_id', 'k.retries'])
      .where('c.campaign_id', '=', target.campaignId)
      .where('c.phone', '=', target.phone)
      .where('c.state', '=', 'in_progress')
      .executeTakeFirst();
    // An outcome of another attempt than the one in progress (an old call's late callback) changes nothing.
    if (!contact || (target.sessionId !== null && contact.last_session_id !== null && contact.last_session_id !== target.sessionId)) return false;
    const next = afterOutcome(outcome, JSON.parse(contact.retries) as CampaignRetries, JSON.parse(contact.retries_used) as Partial<Record<CampaignRetryOutcome, number>>, nowMs);
    const updated = await trx
      .updateTable('campaign_contacts')
      .set({
        ...next,
        last_outcome: outcome,
        ...(target.sessionId !== null && { last_session_id: target.sessionId }),
        claimed_at: null,
        lease_until: null,
        updated_time: new Date(nowMs).toISOString(),
      })
      .where('id', '=', contact.id)
      .where('state', '=', 'in_progress')
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  });
}

/**
 * Puts a claimed contact back as if it had not been claimed (the attempt is not counted): a call
 * that was never placed, or that the licence or the provider's pace held back.
 */
export async function releaseClaim(db: Kysely<Database>, contactId: number, retryAtMs: number): Promise<void> {
  await db
    .updateTable('campaign_contacts')
    .set((eb) => ({
      state: 'pending',
      attempts: eb('attempts', '-', 1),
      next_attempt_time: new Date(retryAtMs).toISOString(),
      claimed_at: null,
      lease_until: null,
      last_session_id: null,
      updated_time: new Date().toISOString(),
    }))
    .where('id', '=', contactId)
    .where('state', '=', 'in_progress')
    .execute();
}
