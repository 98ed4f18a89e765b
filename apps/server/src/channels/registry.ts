/**
 * The providers the server speaks (docs/sessions.md, "Channels"): adding one is its folder
 * (implementing channel.ts) and its line here. The app registers every channel's routes and
 * listeners from this registry, and the session runtime finds a chat's sender in it, through the
 * app's context: nothing registers itself when its module is imported.
 */
import type { Provider } from '@voxplan/engine';
import type { ChannelLookup } from '../context.ts';
import { asteriskChannel } from './asterisk/channel.ts';
import { createMessaging } from './messaging.ts';
import type { Channel } from './channel.ts';
import { simulatorChannel } from './simulator/channel.ts';
import { twilioChannel } from './twilio/channel.ts';
import { webchatChannel } from './webchat/channel.ts';
import { whatsappChannel } from './whatsapp/channel.ts';
import { createCustomerWindow, createTemplates } from './whatsapp/engine-ports.ts';

/** Every provider once; the Record makes a provider added to the engine's list without a channel a type error. */
const allChannels: Record<Provider, Channel> = {
  twilio: twilioChannel,
  asterisk: asteriskChannel,
  whatsapp: whatsappChannel,
  webchat: webchatChannel,
  simulator: simulatorChannel,
};

/** The channels of an app: what the modules find in it (context.ts, `ChannelLookup`), whole, for the app to register their routes and listeners. */
export interface ChannelRegistry extends ChannelLookup {
  all(): readonly Channel[];
  get(provider: string): Channel | undefined;
}

/** The registry of an app: its own copy, so that what a test replaces in one app leaves the others alone. */
export function createChannelRegistry(channels: readonly Channel[] = Object.values(allChannels)): ChannelRegistry {
  const byProvider = new Map<string, Channel>(channels.map((channel) => [channel.provider, channel]));
  return {
    all: () => [...byProvider.values()],
    get: (provider) => byProvider.get(provider),
    enginePorts: { messaging: createMessaging, templates: createTemplates, customerWindow: createCustomerWindow },
    replaceChat(provider, chat) {
      const replaced = byProvider.get(provider);
      if (!replaced) throw new Error(`no channel for provider ${provider} in this registry`);
      const standIn: Channel = { ...replaced, chat };
      byProvider.set(provider, standIn);
      return () => {
        if (byProvider.get(provider) === standIn) byProvider.set(provider, replaced);
      };
    },
  };
}
