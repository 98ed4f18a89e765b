/**
 * The providers the server speaks (docs/sessions.md, "Channels"): adding one is its folder
 * (implementing channel.ts) and its line here. The app registers every channel's routes and
 * listeners from this registry, and the session runtime finds a chat's sender in it, through the
 * app's context: nothing registers itself when its module is imported.
 */
import type { Provider } from '@voxplan/engine';
import { asteriskChannel } from './asterisk/channel.ts';
import type { Channel, ChatSending } from './channel.ts';
import { simulatorChannel } from './simulator/channel.ts';
import { twilioChannel } from './twilio/channel.ts';
import { webchatChannel } from './webchat/channel.ts';
import { whatsappChannel } from './whatsapp/channel.ts';

/** Every provider once; the Record makes a provider added to the engine's list without a channel a type error. */
const allChannels: Record<Provider, Channel> = {
  twilio: twilioChannel,
  asterisk: asteriskChannel,
  whatsapp: whatsappChannel,
  webchat: webchatChannel,
  simulator: simulatorChannel,
};

export interface ChannelRegistry {
  /** The channels in the order their routes are registered. */
  all(): readonly Channel[];
  /** A stored row's provider is a string: one no channel has answers undefined. */
  get(provider: string): Channel | undefined;
  /**
   * Makes `chat` how `provider`'s chats reach their customer in this registry (tests stand in for a
   * channel with it). Answers the function that puts back what it replaced.
   */
  replaceChat(provider: Provider, chat: ChatSending): () => void;
}

/** The registry of an app: its own copy, so that what a test replaces in one app leaves the others alone. */
export function createChannelRegistry(channels: readonly Channel[] = Object.values(allChannels)): ChannelRegistry {
  const byProvider = new Map<string, Channel>(channels.map((channel) => [channel.provider, channel]));
  return {
    all: () => [...byProvider.values()],
    get: (provider) => byProvider.get(provider),
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
