/**
 * What every provider of calls and chats is to the server (docs/sessions.md, "Channels"): one folder
 * of channels/ implementing this interface, listed once in channels/registry.ts. The session runtime
 * and the engine know nothing of a provider; a channel turns what the provider sends into turns of
 * a session, and a turn's actions into what the provider understands.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AppContext, ChannelPort } from '../context.ts';

export type { ChannelLimits, ChatSending, CustomerAddress, OutboundDialer } from '../context.ts';
export type { ChatOpening, OutboundDial } from '../modules/outbound-calls/outbound-calls.types.ts';

/** A listener outside HTTP (the FastAGI server), started once the HTTP server listens. */
export interface ChannelListener {
  /** Stops listening; what is still running is cut after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

export interface ChannelRoutesOptions {
  ctx: AppContext;
  apiPrefix: string;
}

/** A channel: what the modules see of it (context.ts, `ChannelPort`), and what only the app and the channel itself use. */
export interface Channel extends ChannelPort {
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
}
