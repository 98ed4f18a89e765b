/**
 * An agent's template message (docs/conversations.md, "The customer service window"): past
 * WhatsApp's 24-hour window the composer offers the number's approved templates, and sends one
 * with its values. The chat's channel checks and sends it (its refusals are catalogue codes); only
 * once the channel took it is it stored, as the template's text with its values, marked as the
 * template, so that a refusal leaves nothing behind.
 */
import type { AgentTemplateMessage, ConversationMessage, WhatsAppTemplate } from '@voxplan/contracts';
import type { Scope } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { addMessage, type ConversationContext, type ConversationRecord, findConversation } from './conversation-records.ts';
import { heldConversation } from './agent-actions.ts';

/** Where the conversation's customer is, as its channel addresses them. */
async function addressOf(ctx: ConversationContext, record: ConversationRecord) {
  const session = await ctx.db.selectFrom('sessions').select('called').where('id', '=', record.session_id).executeTakeFirst();
  return { tenant_id: record.tenant_id, session_id: record.session_id, caller: record.caller, called: session?.called ?? '' };
}

/** The templates the chat's number may send (none on a channel without templates). */
export async function conversationTemplates(ctx: ConversationContext, scope: Scope, id: number): Promise<WhatsAppTemplate[]> {
  const record = await findConversation(ctx, scope, id);
  const list = ctx.channels.get(record.provider)?.chat?.templates;
  return list ? list(ctx, await addressOf(ctx, record)) : [];
}

/** Sends the template to the customer, then stores it; only the agent holding the chat. */
export async function postAgentTemplate(ctx: ConversationContext, scope: Scope, id: number, template: AgentTemplateMessage): Promise<ConversationMessage> {
  const record = await heldConversation(ctx, scope, id);
  const send = ctx.channels.get(record.provider)?.chat?.sendTemplate;
  if (!send) throw new AppError(422, 'number_not_whatsapp', [{ path: 'template', message: `a ${record.provider} chat takes no templates` }]);
  const { text } = await send(ctx, await addressOf(ctx, record), template);
  // Without an external id a message is never a duplicate.
  return (await addMessage(ctx, record, { author: 'agent', agent_id: scope.actor.userId, text, template: { name: template.name, language: template.language } }))!;
}
