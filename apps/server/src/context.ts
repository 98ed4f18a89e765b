/**
 * The app's context: what the composition root (bootstrap.ts, app.ts) hands every module and
 * channel, passed explicitly instead of imported. It sits on the modules' floor (docs/architecture.md):
 * it names the modules' services by their own declarations (session-runtime.ts, license.types.ts,
 * outbound-calls.types.ts, metrics.types.ts), which import nothing that imports it back, and what the
 * modules see of a channel (`ChannelPort`), declared here because a channel's functions are handed
 * this same context. The channels fill the port in (channels/channel.ts); nothing here imports them.
 */
import type { AgentTemplateMessage, AttachmentRule, ConversationMessage, WhatsAppTemplate } from '@voxplan/contracts';
import type { CustomerWindow, Messaging, MessagingResult, Provider, Session, Channel as SessionChannel, Templates } from '@voxplan/engine';
import type { LicenseService } from './modules/license/license.types.ts';
import type { Metrics } from './modules/metrics/metrics.types.ts';
import type { ChatOpening, DailyReach, OutboundCalls, OutboundDial } from './modules/outbound-calls/outbound-calls.types.ts';
import type { SessionRuntime, TurnOutcome } from './modules/sessions/session-runtime.ts';
import type { PlatformContext } from './platform.ts';

export type { Actor, Scope } from './platform.ts';

/** Everything a request handler needs from the process, passed explicitly instead of imported. */
export interface AppContext extends PlatformContext {
  /** The providers of calls and chats, as the modules see them (docs/sessions.md, "Channels"). */
  channels: ChannelLookup;
  /** Sessions of calls and chats: start one, run its turns, sweep idle chats (docs/sessions.md). */
  sessions: SessionRuntime;
  /**
   * Calls the plan places (docs/outbound.md): place one, and what the channels tell of it. Not
   * `outbound`, which is the client of requests leaving the server.
   */
  outboundCalls: OutboundCalls;
  /** The licence in force and its limits (docs/licence.md). */
  license: LicenseService;
  /** What GET /metrics reports (docs/metrics.md); absent where no server runs (tools, some tests). */
  metrics?: Metrics;
}

/**
 * The channels of an app, as the modules find them (channels/registry.ts makes it, with every
 * channel's routes and listeners besides).
 */
export interface ChannelLookup {
  /** The channels in the order their routes are registered. */
  all(): readonly ChannelPort[];
  /** A stored row's provider is a string: one no channel has answers undefined. */
  get(provider: string): ChannelPort | undefined;
  /**
   * Makes `chat` how `provider`'s chats reach their customer in this registry (tests stand in for a
   * channel with it). Answers the function that puts back what it replaced.
   */
  replaceChat(provider: Provider, chat: ChatSending): () => void;
  /** The engine's ports the providers serve outside a turn's answer. */
  enginePorts: ChannelEnginePorts;
}

/**
 * The engine's ports the providers serve outside a turn's answer (docs/engine.md): the
 * `send_message` block (SMS through Twilio, WhatsApp), message templates and the customer window
 * (WhatsApp). channels/messaging.ts and channels/whatsapp/engine-ports.ts make them; the session
 * runtime takes them from `ctx.channels`.
 */
export interface ChannelEnginePorts {
  messaging(ctx: Pick<AppContext, 'db' | 'keys' | 'config'>, options?: MessagingOptions): Messaging;
  templates(ctx: Pick<AppContext, 'db' | 'keys' | 'config'>): Templates;
  customerWindow(ctx: Pick<AppContext, 'db' | 'keys' | 'config'>): CustomerWindow;
}

export interface MessagingOptions {
  /** Twilio's REST API (TWILIO_API_URL); tests point it at a local server. */
  twilioApiUrl?: string;
}

/** What the modules see of a channel: the sessions it runs, how it reaches a chat's customer, how it dials, its limits. */
export interface ChannelPort {
  provider: Provider;
  /** The kinds of session it runs. */
  sessions: readonly SessionChannel[];
  /** Chats only: how it reaches the customer outside a request. */
  chat?: ChatSending;
  /** Calls only: how it places a call the plan makes (docs/outbound.md). Absent: its numbers cannot call (the web chat, WhatsApp). */
  dial?: OutboundDialer;
  /**
   * Calls only, where the provider can be asked about a call whose end it never told (Twilio's Call
   * resource): ends those it says are over, answers their ids. Run by the retention job.
   */
  endLostCalls?: (ctx: LostCallsContext, now: Date, log?: (message: string) => void) => Promise<string[]>;
  limits: ChannelLimits;
}

/** What a channel's `endLostCalls` needs of the app. */
export type LostCallsContext = Pick<AppContext, 'db' | 'keys' | 'config' | 'sessions'> & Partial<Pick<AppContext, 'readCache'>>;

/** A channel's outbound side (`ChannelPort.dial`). */
export interface OutboundDialer {
  /**
   * Hands the call to the provider; answers the provider's id for it. A refusal throws an AppError
   * with a catalogue code (`invalid_phone_number`, `outbound_provider_refused`, …) and the core
   * stores nothing of the call. The outcome comes back through `ctx.outboundCalls.dialResult` or
   * `.answered`.
   */
  place(ctx: AppContext, call: OutboundDial): Promise<{ provider_call_id: string }>;
  /** The provider's pace per account (Twilio: 1 a second by default); the campaigns keep under it. */
  callsPerSecond: number;
  /**
   * A messaging channel (WhatsApp) rings nobody: once `place` took the request, the core starts the
   * plan as a chat at once (`direction: outbound`, `caller` the customer, `called` the number) and
   * hands its first turn to `open`, which sends it.
   */
  chat?: {
    open(ctx: AppContext, call: OutboundDial, first: TurnOutcome): Promise<ChatOpening>;
    /** The number's daily reach, where the provider limits it (Meta's messaging limit); `place` refuses past it. */
    reach?(ctx: Pick<AppContext, 'db'>, numberId: number, now?: Date): Promise<DailyReach>;
  };
}

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
