/**
 * A transfer's deadline (docs/conversations.md, "Transfer deadline"): a chat handed to an agent or a
 * queue must be accepted (taken, or answered by the agent it was given to) within the general
 * setting `conversation_transfer_timeout_seconds`, or it goes back.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { readSystemSetting } from '../configurations/settings.ts';

/** What a transfer stores: its deadline, and the agent it came from (none for a chat nobody held). */
export async function transferDeadline(db: Kysely<Database>, fromAgent: number | null, now = Date.now()): Promise<{ transfer_deadline_at: string; transferred_from: number | null }> {
  const seconds = await readSystemSetting(db, 'conversation_transfer_timeout_seconds');
  return { transfer_deadline_at: new Date(now + seconds * 1000).toISOString(), transferred_from: fromAgent };
}
