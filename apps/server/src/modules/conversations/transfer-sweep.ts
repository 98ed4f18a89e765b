/**
 * Transfers not accepted in time go back (docs/conversations.md, "Transfer deadline"): to the agent
 * who transferred the chat while they are online, who knows the customer; else to the waiting list
 * of the chat's queue, where any of its agents may take it. Run by every instance's chat sweeper;
 * each move is conditional on the row being as it was read, so two sweeps move a chat once.
 */
import { nowIso } from '../../lib/time.ts';
import { addMessage, type ConversationContext, userName } from './conversation-records.ts';
import { publishRow } from './queue-place.ts';
import { presenceOf } from './presence.ts';

/** Answers the ids of the conversations it moved back. */
export async function sweepTransfers(ctx: ConversationContext, now = new Date(), batch = 200): Promise<number[]> {
  const due = await ctx.db
    .selectFrom('conversations')
    .selectAll()
    .where('transfer_deadline_at', '<=', now.toISOString())
    .where('status', '<>', 'closed')
    .orderBy('transfer_deadline_at')
    .limit(batch)
    .execute();
  const moved: number[] = [];
  for (const found of due) {
    const previous = found.transferred_from;
    const back = previous !== null && previous !== found.agent_id && (await presenceOf(ctx, previous, found.tenant_id)) === 'online' ? previous : null;
    const changes = back !== null ? { status: 'open' as const, agent_id: back, taken_at: nowIso() } : { status: 'waiting' as const, agent_id: null, taken_at: null };
    const updated = await ctx.db
      .updateTable('conversations')
      .set({ ...changes, transfer_deadline_at: null, transferred_from: null, deadline_at: null, ...(found.status === 'open' && { unread_for_agent: 0 }) })
      .where('id', '=', found.id)
      .where('status', '=', found.status)
      .where('transfer_deadline_at', '=', found.transfer_deadline_at!)
      .returningAll()
      .executeTakeFirst();
    // Accepted, closed or moved meanwhile; or it waits in its queue already, where it stays.
    if (!updated || (found.status === 'waiting' && back === null)) continue;
    const queue = updated.destination_id === null ? undefined : await ctx.db.selectFrom('destinations').select('name').where('id', '=', updated.destination_id).executeTakeFirst();
    const to = back !== null ? await userName(ctx.db, back) : (queue?.name ?? '');
    await addMessage(ctx, updated, { author: 'system', text: `transfer not accepted: back to ${to}` });
    await publishRow(ctx, updated, 'conversation.transferred');
    moved.push(found.id);
  }
  return moved;
}
