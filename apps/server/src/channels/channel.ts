/**
 * What every provider of calls and chats is to the server (docs/sessions.md, "Channels"): one folder
 * of channels/ implementing this interface, listed once in channels/registry.ts. The session runtime
 * and the engine know nothing of a provider; a channel turns what the provider sends into turns of
 * a session, and a turn's actions into what the provider understands.
 */
import type { AgentTemplateMessage, AttachmentRule, ConversationMessage, WhatsAppTemplate } from '@voxplan/contracts';
import type { MessagingResult, Provider, Channel as SessionChannel } from '@voxplan/engine';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import type { OutboundDialer } from '../modules/outbound-calls/outbound-calls.types.ts';
import type { ChatSender } from '../modules/sessions/chat-channels.ts';

export type { ChatOpening, OutboundDial, OutboundDialer } from '../modules/outbound-calls/outbound-calls.types.ts';

/** What a provider really carries, from its documentation (docs/channels-*.md), so that nobody asks it for more. */
export interface ChannelLimits {
  /** The longest text of one message (longer replies are split, a longer customer's message refused); null where it has none (voice speaks text). */
  text: number | null;
  /** A menu's options the customer can tap in one message (buttons, a list's rows); 0 where options are keys or words (voice), null for no limit of its own. */
  options: number | null;
  /**
   * The files a person may send the customer, by kind, type and size (`attachmentLimits` of the
   * contracts, which the upload route enforces and the console checks); empty: none, and an
   * attachment goes as its link in the text.
   */
  attachments: readonly AttachmentRule[];
  /** The media types the channel takes from the customer besides text (a WhatsApp voice note); empty for none. */
  inboundMedia: readonly string[];
  /** How long after the customer's last message the provider lets us write to them; null for no such window. */
  customerWindowMs: number | null;
}

/** Where a chat's customer is: the session, its tenant, the customer's address and the number (or widget) they wrote to. */
export interface CustomerAddress {
  tenant_id: number;
  session_id: string;
  caller: string;
  called: string;
}

/** A chat channel's sending side: what reaches the customer outside an answer to their request. */
export interface ChatSending {
  /** A stored turn nobody waits on (the sweeper's, a hand-off's outcome). */
  turn: ChatSender;
  /**
   * A person's message to the customer. Absent where the customer's side fetches the conversation
   * itself (the web chat's widget polls, the simulator's panel is the plan's author), so there is
   * nothing to push.
   */
  message?: (ctx: Pick<AppContext, 'db' | 'keys' | 'config'>, to: CustomerAddress, message: Pick<ConversationMessage, 'text' | 'attachment'>) => Promise<MessagingResult>;
  /**
   * Where the channel has a customer service window (`limits.customerWindowMs`): when the customer
   * last wrote to the number, as the provider dates it (ISO); null when they never did.
   */
  customerLastWrote?: (ctx: Pick<AppContext, 'db' | 'keys' | 'config'>, to: CustomerAddress) => Promise<string | null>;
  /** Where a person may send message templates (WhatsApp, even past the window): the number's approved ones. */
  templates?: (ctx: Pick<AppContext, 'db' | 'keys' | 'config'>, to: CustomerAddress) => Promise<WhatsAppTemplate[]>;
  /**
   * Sends a person's template: a refusal (an unknown or unapproved template, a value missing or of
   * the wrong type, the provider's refusal) throws an AppError with its catalogue code, before
   * anything is stored. Answers the text the customer reads.
   */
  sendTemplate?: (ctx: Pick<AppContext, 'db' | 'keys' | 'config'>, to: CustomerAddress, template: AgentTemplateMessage) => Promise<{ text: string }>;
}

/** A listener outside HTTP (the FastAGI server), started once the HTTP server listens. */
export interface ChannelListener {
  /** Stops listening; what is still running is cut after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

export interface ChannelRoutesOptions {
  ctx: AppContext;
  apiPrefix: string;
}

export interface Channel {
  provider: Provider;
  /** The kinds of session it runs. */
  sessions: readonly SessionChannel[];
  /** Its inbound HTTP routes (webhooks, the widget's API, the simulator's WebSocket), registered below the API prefix. */
  routes?: (api: FastifyInstance, options: ChannelRoutesOptions) => Promise<void>;
  /** Routes at the site's root, outside the API (the widget's script). */
  rootRoutes?: (app: FastifyInstance, ctx: AppContext) => void;
  /** Its inbound listener outside HTTP; answers null when its configuration leaves it off. */
  listen?: (ctx: AppContext, log: FastifyBaseLogger) => Promise<ChannelListener | null>;
  /**
   * How a turn's actions become the provider's language (TwiML, AGI commands, Graph API messages,
   * the widget's view, simulator frames). Each provider's takes what it needs, so its signature is
   * its own; it is here so that each channel names the one place it renders.
   */
  // never[]: any function, whatever its parameters; a caller uses the channel's own module for the types.
  render: (...args: never[]) => unknown;
  /** Chats only: how it reaches the customer outside a request. */
  chat?: ChatSending;
  /** Calls only: how it places a call the plan makes (docs/outbound.md). Absent: its numbers cannot call (the web chat, WhatsApp). */
  dial?: OutboundDialer;
  limits: ChannelLimits;
}
