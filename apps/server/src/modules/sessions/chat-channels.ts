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
import type { Session } from '@voxplan/engine';
import type { AppContext } from '../../context.ts';
import type { TurnOutcome } from './sessions.service.ts';

/** What a sender needs of the app: everything but the session runtime that calls it. */
export type ChatSenderContext = Omit<AppContext, 'sessions' | 'license' | 'outboundCalls'>;

/** A stored turn nobody is waiting on, for the conversation's channel to deliver. */
export interface ChatDelivery {
  /** The session after the turn: `caller` is the user's address on the channel, `called` the number (or widget) they wrote to. */
  session: Session;
  is_test: boolean;
  /** The turn as stored: its actions (replies, a hand-off, the hangup) in order, the blocks it entered, its event id's outcome. */
  outcome: TurnOutcome;
  /** The event id the turn was stored under (`timeout:...`, `handoff:...`). */
  event_id: string;
}

/**
 * Sends a delivery's actions to the conversation. It runs after the turn is committed; a sender
 * that throws has its error logged, the turn stays stored (the delivery is not retried).
 */
export type ChatSender = (ctx: ChatSenderContext, delivery: ChatDelivery) => Promise<void>;

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
