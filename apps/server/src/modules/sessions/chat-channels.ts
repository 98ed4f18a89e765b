/**
 * The chat channels' senders, by provider (docs/sessions.md, "Chat channels").
 *
 * A chat channel answers a user's message with the actions of the turn it ran. Some turns have no
 * message to answer: the chat sweeper ending an idle chat (the plan's `chat_text`, then the
 * hangup), and the turn that follows a hand-off (docs/handoff.md). Their actions go to the
 * conversation through the sender of the session's provider's channel (channels/registry.ts, in
 * the app's context): WhatsApp sends them over the Graph API, the web chat to the widget, the
 * simulator to the editor's test panel.
 */
import type { ChatDelivery, ChatSenderContext } from '../../context.ts';

export type { ChatDelivery, ChatSender, ChatSenderContext } from '../../context.ts';

/**
 * Hands a delivery to its provider's sender. Never throws: the turn is stored whatever the channel
 * does with it, and a chat without a sender (a provider the app's registry has no chat channel for) is logged.
 */
export async function deliverChatTurn(ctx: ChatSenderContext, delivery: ChatDelivery, log: (message: string) => void): Promise<void> {
  if (delivery.session.channel !== 'chat' || delivery.outcome.actions.length === 0) return;
  const sender = ctx.channels.get(delivery.session.provider)?.chat?.turn;
  if (!sender) {
    log(`no chat sender for provider ${delivery.session.provider}: ${delivery.outcome.actions.length} actions of session ${delivery.session.id} were not sent`);
    return;
  }
  try {
    await sender(ctx, delivery);
  } catch (error) {
    log(`chat sender ${delivery.session.provider} failed for session ${delivery.session.id}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
