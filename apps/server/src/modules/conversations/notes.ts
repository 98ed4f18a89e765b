/**
 * An agent's private note on a conversation (issue 36, docs/conversations.md, "Notes"): a message of
 * author `note`, told to the tenant's consoles like any other, never to the customer. The web chat's
 * widget reads only the customer's and the agents' messages, and no channel's sender is called: a
 * note cannot leave the console. Any agent of the tenant may write one, on a chat in any state (a
 * supervisor's remark on a closed chat, for the report).
 */
import type { ConversationMessage } from '@voxplan/contracts';
import type { Scope } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { assertAllowed, tenantFilterOf } from '../../plugins/auth.ts';
import { addMessage, type ConversationContext } from './conversation-records.ts';

export async function postNote(ctx: ConversationContext, scope: Scope, id: number, text: string): Promise<ConversationMessage> {
  assertAllowed(scope.actor, 'member', true);
  const tenantId = tenantFilterOf(scope);
  let query = ctx.db.selectFrom('conversations').select(['id', 'tenant_id', 'session_id']).where('id', '=', id);
  if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
  const record = await query.executeTakeFirst();
  if (!record) throw notFound('conversation_not_found');
  // Without an external id a message is never a duplicate: it is always stored.
  return (await addMessage(ctx, record, { author: 'note', agent_id: scope.actor.userId, text }))!;
}
